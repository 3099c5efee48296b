#!/usr/bin/env bash
# Installs what libdlca_cl needs to build and test on Debian/Ubuntu, if it is
# missing: the compiler, autotools, the OpenCL ICD loader and headers, PoCL as
# the CPU OpenCL device, jansson, xxhash, Check, libpng, giflib (dlca-eval --gif), CLBlast and LAPACKE; Icarus Verilog,
# which the tests use to run the Verilog that dlca-export writes; help2man,
# which remakes the tools' man pages (without it the shipped ones install);
# Python 3 with numpy, pytest, Pillow and matplotlib for the binding's tests
# and pictures (python/).
set -euo pipefail
pkgs="build-essential autoconf automake libtool pkg-config ocl-icd-opencl-dev opencl-c-headers
      ocl-icd-libopencl1 pocl-opencl-icd clinfo libjansson-dev libxxhash-dev check libsubunit-dev
      libpng-dev libgif-dev zlib1g-dev libclblast-dev liblapacke-dev iverilog help2man clang
      python3 python3-pip python3-numpy python3-pytest python3-pil python3-matplotlib"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "deps: installing$missing" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq $missing >/dev/null
fi
