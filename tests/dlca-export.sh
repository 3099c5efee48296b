#!/bin/sh
# End-to-end checks of tools/dlca-export: help and version; a trained
# circuit exported as C compiles and as Verilog (with Icarus Verilog, when
# installed) computes what the C computes on random patches; bad input
# exits 2 with one line that names what is wrong. That the exported C
# equals the CPU reference bit for bit is tests/test_export.c's job.
# Exit 77 (automake's "skipped") when a tool was not built.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-export dlca-export
train="$top/tools/dlca-train"
[ -x "$train" ] || { echo "SKIP: $train not built"; exit 77; }
cc=${DLCA_CC:-cc}

# (a) help and version
expect 0 "--help" -- "$prog" --help
grep -q -- "--format" out.txt || fail "--help does not describe --format"
expect 0 "--version" -- "$prog" --version
grep -q '[0-9]\.[0-9]' out.txt || fail "--version prints no version: $(cat out.txt)"

# (b) a gol circuit, 300 epochs on the CPU reference: some logic survives the folding
expect 0 "train gol" -- "$train" --backend ref --quiet --preset gol --seed 3 --epochs 300 --eval-every 100 --save gol.json
expect 0 "export C" -- "$prog" --model gol.json --out gol.h --name life
grep -q '^gol.h: C, [1-9][0-9]* logic gates' out.txt || fail "export C: $(cat out.txt)"
grep -q 'static inline void life_cells64' gol.h || fail "gol.h has no life_cells64"
grep -q 'static inline void life_step' gol.h || fail "gol.h has no life_step"
# a test program: the circuit on 64 x 8 random patches through life_cells64, one line per patch
cat >tb.c <<'EOT'
#include <stdio.h>
#include "gol.h"
int main(void) {
  uint64_t s = 88172645463325252ull, in[9], out[1];
  for (int w = 0; w < 8; w++) {
    for (int f = 0; f < 9; f++) s ^= s << 13, s ^= s >> 7, s ^= s << 17, in[f] = s;
    life_cells64(in, out);
    for (int i = 0; i < 64; i++) {
      for (int f = 8; f >= 0; f--) putchar('0' + (int)((in[f] >> i) & 1));
      printf(" %d\n", (int)((out[0] >> i) & 1));
    }
  }
  return 0;
}
EOT
# $cc may hold flags (CC="gcc -m32"): split on purpose
# shellcheck disable=SC2086
expect 0 "compile the C" -- $cc -std=c99 -Wall -Werror -O1 -o tb tb.c
expect 0 "run the C" -- ./tb
cp out.txt c.txt
[ "$(wc -l <c.txt)" -eq 512 ] || fail "the C test program printed $(wc -l <c.txt) lines, not 512"
expect 0 "export Verilog" -- "$prog" --model gol.json --out gol.v --name life --format verilog --quiet
[ ! -s out.txt ] || fail "--quiet printed: $(cat out.txt)"
grep -q '^module life_cell (input wire \[8:0\] in, output wire \[0:0\] out);' gol.v || fail "gol.v: $(head -n 8 gol.v)"
if command -v iverilog >/dev/null 2>&1 && command -v vvp >/dev/null 2>&1; then
  # the same patches (bit f of the 9-bit vector is patch element f) through the module
  cut -d' ' -f1 c.txt >patches.txt
  cat >tb.v <<'EOT'
module tb;
  reg [8:0] mem [0:511];
  reg [8:0] in;
  wire [0:0] out;
  integer i;
  life_cell dut (.in(in), .out(out));
  initial begin
    $readmemb("patches.txt", mem);
    for (i = 0; i < 512; i = i + 1) begin
      in = mem[i];
      #1 $display("%b %0d", in, out);
    end
  end
endmodule
EOT
  expect 0 "compile the Verilog" -- iverilog -s tb -o tb.vvp tb.v gol.v
  expect 0 "run the Verilog" -- vvp -n tb.vvp
  grep -v '^VCD\|finish' out.txt >v.txt
  cmp -s c.txt v.txt || fail "the Verilog and the C differ on $(diff c.txt v.txt | grep -c '^<') of 512 patches"
else
  echo "note: iverilog not installed; the Verilog is checked for its module line only"
fi

# (c) bad input: exit 2, one line naming the problem
expect 2 "no model" -- "$prog" --out x.c
grep -q -- '--model: missing' err.txt || fail "no model: $(cat err.txt)"
expect 2 "bad format" -- "$prog" --model gol.json --out x.c --format vhdl
grep -q "'vhdl' is neither c nor verilog" err.txt || fail "bad format: $(cat err.txt)"
expect 2 "bad name" -- "$prog" --model gol.json --out x.c --name 1st
grep -q "name '1st'" err.txt || fail "bad name: $(cat err.txt)"
[ ! -e x.c ] || fail "a refused export wrote x.c"
expect 0 "keep channel 0" -- "$prog" --model gol.json --out k.c --keep 0
grep -q '1 of 1 channels kept' out.txt || fail "--keep 0: $(cat out.txt)"
expect 2 "keep a channel the model lacks" -- "$prog" --model gol.json --out k.c --keep 5
grep -q 'channel 5' err.txt || fail "--keep 5: $(cat err.txt)"
expect 2 "keep, not a list" -- "$prog" --model gol.json --out k.c --keep 0,x
printf '{"format": "dlca-model", "version": 1, "cha' >bad.json
expect 2 "corrupt model" -- "$prog" --model bad.json --out x.c
grep -q 'bad.json' err.txt || fail "corrupt model: the error does not name the file: $(cat err.txt)"
expect 1 "unwritable output" -- "$prog" --model gol.json --out no/such/dir/x.c
grep -q 'no/such/dir' err.txt || fail "unwritable output: $(cat err.txt)"
[ "$failures" -eq 0 ] || {
  echo "$failures check(s) failed"
  exit 1
}
echo "all dlca-export checks passed"
