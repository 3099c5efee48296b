#!/bin/sh
# End-to-end checks of tools/dlca-net (a few seconds on 2 cores): the MLP
# learns the digits on the CPU twin and, with the defaults, on the OpenCL
# device (>= 95%); --json and --save write what they promise; bad input
# exits 2 with one line. Exit 77 when not built.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-net dlca-net
# the source tree's data (make check sets DLCA_SRCDIR; a distcheck builds elsewhere)
DLCA_NET_DATA="${DLCA_SRCDIR:-$top/..}/data"
export DLCA_NET_DATA

# json_num FILE KEY: the first number after "KEY":
json_num() { grep -o "\"$2\": [-0-9.e+]*" "$1" | head -n 1 | sed 's/.*: //'; }

expect 0 "--help" -- "$prog" --help
grep -q -- "--model NAME" out.txt || fail "--help does not describe --model"
expect 0 "--version" -- "$prog" --version
grep -q '^dlca-net .*[0-9]\.[0-9]' out.txt || fail "--version prints no version: $(cat out.txt)"

expect 0 "MLP, 12 epochs on the CPU twin" -- "$prog" --backend ref --quiet --epochs 12 --json r.json --save net.json
for k in dataset model device epochs test_accuracy train_loss wall_s samples_per_s; do
  grep -q "\"$k\":" r.json || fail "r.json has no \"$k\": $(cat r.json)"
done
acc=$(json_num r.json test_accuracy)
awk "BEGIN { exit !($acc >= 0.95) }" || fail "test accuracy $acc < 0.95"
grep -q '"format":"dlca-net"' net.json || fail "net.json is not a dlca-net file"
expect 0 "--json -" -- "$prog" --backend ref --quiet --epochs 1 --json -
grep -q '"test_accuracy"' out.txt || fail "--json - wrote no JSON to stdout"

# The acceptance run: the defaults on the default OpenCL device (PoCL in CI).
if "$top/tools/dlca-info" >/dev/null 2>&1; then
  expect 0 "MLP, the defaults on the OpenCL device" -- "$prog" --quiet --json cl.json
  acc=$(json_num cl.json test_accuracy)
  awk "BEGIN { exit !($acc >= 0.95) }" || fail "device test accuracy $acc < 0.95"
  grep -q '"backend": "cl"' cl.json || fail "cl.json does not say backend cl: $(cat cl.json)"
else
  echo "skip: no OpenCL device"
fi

expect 2 "unknown model" -- "$prog" --model resnet
grep -q "resnet" err.txt || fail "no word of the model: $(cat err.txt)"
expect 2 "unknown data set" -- "$prog" --dataset mnist
expect 2 "bad --epochs" -- "$prog" --epochs 0
expect 2 "bad --lr" -- "$prog" --lr -1
expect 2 "bad --backend" -- "$prog" --backend gpu
expect 2 "--device with --backend ref" -- "$prog" --backend ref --device 0
expect 2 "batch over the training set" -- "$prog" --backend ref --batch 5000
DLCA_NET_DATA="$tmp/none" expect 1 "missing data set" -- "$prog" --backend ref --quiet
grep -q "digits.csv.gz" err.txt || fail "the missing file is not named: $(cat err.txt)"
mkdir -p bad/digits && printf '1,2,3\n' | gzip > bad/digits/digits.csv.gz
DLCA_NET_DATA="$tmp/bad" expect 2 "corrupt data set" -- "$prog" --backend ref --quiet
grep -q "digits.csv.gz:1: field 3" err.txt || fail "the bad line is not named: $(cat err.txt)"

[ "$failures" -eq 0 ] || exit 1
exit 0
