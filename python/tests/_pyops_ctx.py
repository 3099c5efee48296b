"""The device context of the compute-layer tests: dlca_cl.Context on
$DLCA_CL_DEVICE (conftest: PoCL's cpu), one per session."""
import os

import pytest

from dlca_cl import Context


def make_context():
    return Context(os.environ.get("DLCA_CL_DEVICE", "cpu"))


@pytest.fixture(scope="session")
def ctx():
    return make_context()
