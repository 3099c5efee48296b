#!/usr/bin/env bash
# GPU call 13 (2026-11-25): the checkerboard recipe chosen on seeds 1-24 (temperature 2 + Gumbel 0.5,
# batch 2) against the paper's protocol on held-out seeds 25-48; the same recipe at batch 8 on
# seeds 1-24; checkerboard-async, the paper's protocol and temperature 2 + Gumbel 0.5, seeds 1-12.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R/models
go() { # task recipe first-seed count tag epochs
  local s=$(python3 -c "print(','.join(str($3+j) for j in range($4)))")
  timeout 540 bench/dlca-recipes --task $1 --backend cl --recipes $2 --seeds $s --epochs $6 \
    --eval-every 10 --fresh 50 --save-dir $R/models --json $R/rec-$1-$2-$5.json > $R/rec-$1-$2-$5.log 2>&1
}
go checkerboard temp-2-gumbel-0.5 25 12 a 1000 & go checkerboard temp-2-gumbel-0.5 37 12 b 1000 &
go checkerboard reference 25 12 a 1000 & go checkerboard reference 37 12 b 1000 &
go checkerboard temp-2-gumbel-0.5-batch-8 1 12 a 1000 & go checkerboard temp-2-gumbel-0.5-batch-8 13 12 b 1000 &
go checkerboard-async reference 1 12 a 800 & go checkerboard-async temp-2-gumbel-0.5 1 12 a 800 &
wait
for m in $R/models/checkerboard-[rt]*.json; do
  echo "$(basename $m) $(tools/dlca-eval --preset checkerboard --model $m --fresh 0 --scale 4 --json - 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("pass"), d.get("active_gates"))' 2>&1)"
done > $R/scale4.txt
python3 -c "
import json,glob,collections
by=collections.defaultdict(list)
for f in sorted(glob.glob('$R/rec-*.json')):
  for r in json.load(open(f))['runs']: by[f.split('/')[-1].rsplit('-',1)[0]].append(r)
for k,v in by.items():
  ok=[r for r in v if r['success_epoch']]
  print(k, len(v), 'ok', len(ok), 'mean acc %.4f' % (sum(r['fresh_accuracy'] for r in v)/len(v)), sorted(r['seed'] for r in ok))"
rm -rf $R/models
cd $OUT && tar czf r.tgz r && rm -rf r
