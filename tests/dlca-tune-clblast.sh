#!/bin/sh
# dlca-tune --clblast without CLBlast's real tuners (an hour on a GPU): a
# stand-in clblast_tuner_xgemm writes the JSON file the real one writes
# (best_kernel, best_time, best_parameters), and the tool must store the best
# of two into this device's "clblast" section atomically, keep the table's
# other entries, and write a table that a context loads; a missing tuner, a
# result with an unknown parameter and bad options fail by name. Exit 77
# where the tool was not built or there is no OpenCL platform at all.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init bench/dlca-tune dlca-tune-clblast

expect 0 "--clblast --help" -- "$prog" --clblast --help
grep -q "clblast-utils" out.txt || fail "--clblast --help does not name the package"
expect 2 "unknown tuner" -- "$prog" --clblast --clblast-kernels xgemm,frob
grep -q "'frob' is not one of" err.txt || fail "unknown tuner not named: $(cat err.txt)"
expect 2 "bad size" -- "$prog" --clblast --clblast-size 0

mkdir tuners
params='GEMMK=0 KREG=1 KWG=32 KWI=2 MDIMA=8 MDIMC=8 MWG=32 NDIMB=8 NDIMC=8 NWG=64 PRECISION=32 SA=0 SB=0 STRM=0 STRN=0 VWM=4 VWN=4'
cat >tuners/clblast_tuner_xgemm <<EOF2
#!/bin/sh
echo "stand-in \$*"
printf '{"kernel_family": "xgemm_1", "best_kernel": "Xgemm", "best_time": "2.50", "best_parameters": "%s"}\n' '${params}' >clblast_xgemm_1_32.json
printf '{"kernel_family": "xgemm_2", "best_kernel": "Xgemm", "best_time": "1.25", "best_parameters": "%s"}\n' '$(echo "$params" | sed 's/MWG=32/MWG=64/')' >clblast_xgemm_2_32.json
EOF2
chmod +x tuners/clblast_tuner_xgemm
cat >t.json <<'EOF2'
{"format": "dlca-tuning", "version": 1,
 "entries": [{"device": "Other GPU", "driver": "1.0", "params": {"trainer": {"WG": 64}}}]}
EOF2
"$prog" --clblast --clblast-tuners tuners --clblast-kernels xgemm --output t.json >out.txt 2>err.txt
got=$?
if [ "$got" -ne 0 ] && grep -q "no OpenCL platform" err.txt; then
  echo "SKIP: no OpenCL platform: $(cat err.txt)"
  exit 77
fi
[ "$got" -eq 0 ] || { fail "stand-in run: exit $got"; sed 's/^/  | /' out.txt err.txt; }
grep -q '"MWG": 64' t.json || fail "the faster result (MWG 64) is not stored: $(cat t.json)"
grep -q '"Other GPU"' t.json || fail "the other device's entry is gone"
grep -q 'PRECISION' t.json && fail "PRECISION was stored"
ls -a | grep -q 't.json.tmp' && fail "a temp file is left"

# the library opens a context with the table (its device header is this device)
expect 0 "a context loads the written table" -- env DLCA_CL_TUNING="$PWD/t.json" "$prog" --clblast --clblast-tuners tuners --clblast-kernels xgemm --output t2.json

expect 1 "missing tuner" -- "$prog" --clblast --clblast-tuners tuners --clblast-kernels xgemm,copy --output t3.json
grep -q "clblast_tuner_copy_fast not found.*clblast-utils" err.txt || fail "missing tuner: $(cat err.txt)"

sed -i 's/KWI=2/KWI=2 BOGUS=3/' tuners/clblast_tuner_xgemm
expect 1 "a result with an unknown parameter" -- "$prog" --clblast --clblast-tuners tuners --clblast-kernels xgemm --output t4.json
grep -q "Xgemm.BOGUS" err.txt || fail "unknown parameter not named: $(cat err.txt)"
[ -e t4.json ] && fail "a table was written from a bad result"

[ "$failures" -eq 0 ] || exit 1
echo "all dlca-tune --clblast checks passed"
