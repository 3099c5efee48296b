# Source this from a GPU sweep, in the repository root on the GPU host:
#     source scripts/gpu/setup.sh [make targets...] || exit 1
# It registers the drivers and the dependencies sent in .dev/ (gpu-env.sh),
# unpacks the dist tarball .dev/dlca_cl-*.tar.gz under /tmp, builds it (all of
# it, or only the make targets given), leaves the shell in the build tree and
# selects the GPU (DLCA_CL_DEVICE=gpu). A warm host that already built the
# same tarball skips the unpacking and the configure step. $R is $OUT/r,
# created. Earlier sweeps (up to sweep44.sh) spell these lines out.
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
_tgz=$(ls .dev/dlca_cl-*.tar.gz | head -1)
_sum=$(md5sum "$_tgz" | cut -d' ' -f1)
if [ "$(cat /tmp/dlca-setup.sum 2>/dev/null)" != "$_sum" ]; then
  rm -rf /tmp/dlca_cl-*
  tar xzf "$_tgz" -C /tmp && (cd /tmp/dlca_cl-* && ./configure -q >/dev/null 2>&1) || { echo "setup: unpack/configure failed"; return 1; }
  echo "$_sum" > /tmp/dlca-setup.sum
fi
cd /tmp/dlca_cl-* || return 1
# a warm host's tree may hold an earlier sweep's rewritten table or patched
# kernels (settab.py, ablate.py): put the tarball's back (sweep106.sh ran
# with sweep105.sh's last table, which this line now prevents)
tar xzf "$OLDPWD/$_tgz" --strip-components=1 --wildcards '*/tuning/default.json' '*/kernels-cl/*' || { echo "setup: restore failed"; return 1; }
make -j16 -s "$@" >/dev/null 2>&1 || { echo "setup: build failed"; return 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p "$R"
unset _tgz _sum
