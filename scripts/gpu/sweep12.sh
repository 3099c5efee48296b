#!/usr/bin/env bash
# GPU call 12 (2026-11-25): the checkerboard recipes' real success rates, seeds 1-24: the paper's
# protocol, temperature 2 (batch 2), temperature 2 + Gumbel 0.5 (batch 2) and temperature 2 at
# batch 32; eight processes at once; every saved model then on a 64x64 grid for 80 steps.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R/models
for rc in reference temp-2 temp-2-gumbel-0.5 temp-2-batch-32; do
  for h in 0 1; do
    s=$(python3 -c "print(','.join(str(1+$h+2*j) for j in range(12)))")
    timeout 500 bench/dlca-recipes --task checkerboard --backend cl --recipes $rc --seeds $s --epochs 1000 \
      --eval-every 10 --fresh 50 --save-dir $R/models --json $R/rec-$rc-$h.json > $R/rec-$rc-$h.log 2>&1 &
  done
done
wait
for m in $R/models/*.json; do
  echo "$(basename $m) $(tools/dlca-eval --preset checkerboard --model $m --fresh 0 --scale 4 --json - 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("pass"), d.get("active_gates"))' 2>&1)"
done > $R/scale4.txt
python3 -c "
import json,glob,collections
by=collections.defaultdict(list)
for f in sorted(glob.glob('$R/rec-*.json')):
  for r in json.load(open(f))['runs']: by[r['recipe']].append(r)
for k,v in by.items():
  ok=[r for r in v if r['success_epoch']]
  print(k, len(v), 'ok', len(ok), 'mean acc %.4f' % (sum(r['fresh_accuracy'] for r in v)/len(v)), sorted(r['seed'] for r in ok))"
rm -rf $R/models
cd $OUT && tar czf r.tgz r && rm -rf r
