#!/usr/bin/env bash
# GPU call 11 (2026-11-25): v7 (batched flush of the gate sums; stored activations with 8 loads in
# flight): parity, the benchmark with the shipped table against one without the store, and the
# checkerboard's recommended recipe (temp-2-batch-8) on seeds 1-48 in six processes, every model
# then checked on a 64x64 grid for 80 steps.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R/models
echo '{"format":"dlca-tuning","version":1,"entries":[{"device":"default","params":{"trainer":{"STORE_ACTS_MIB":0}}}]}' > /tmp/nostore.json
echo "== parity"
for p in checkerboard checkerboard-async growth gol colour; do echo "$p $(tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "== bench"
for v in store nostore; do
  [ $v = nostore ] && export DLCA_CL_TUNING=/tmp/nostore.json
  bench/dlca-bench --preset checkerboard --batch 1,2,8,512 --repeats 7 --json $R/cb-$v.json --markdown $R/bench-$v.md >/dev/null 2>&1
  bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 7 --json $R/oth-$v.json --markdown $R/bench-$v.md >/dev/null 2>&1
  bench/dlca-bench --preset gol --repeats 7 --json $R/gol-$v.json --markdown $R/bench-$v.md >/dev/null 2>&1
  echo "-- $v"; grep "^| 2026" $R/bench-$v.md | cut -d'|' -f3,4,8,10,11
done
unset DLCA_CL_TUNING
python3 -c "
import json
for v in ['store','nostore']:
  for f in ['cb','oth']:
    for x in json.load(open('$R/%s-%s.json'%(f,v))):
      k=x['kernels_ms']; print(v, x['preset'], x['batch'], x['ms_per_epoch_median'], 'fwd %.3f bwd %.3f'%(k['forward'],k['backward']))"
echo "== recipes"
for i in 0 1 2 3 4 5; do
  s=$(python3 -c "print(','.join(str(1+$i+6*j) for j in range(8)))")
  bench/dlca-recipes --task checkerboard --backend cl --recipes temp-2-batch-8 --seeds $s --epochs 1000 \
    --eval-every 10 --fresh 50 --save-dir $R/models --json $R/rec-$i.json --quiet > $R/rec-$i.log 2>&1 &
done
wait
for m in $R/models/*.json; do
  echo "$(basename $m) $(tools/dlca-eval --preset checkerboard --model $m --fresh 0 --scale 4 --json - 2>/dev/null | tr -d '\n' | head -c 600)"
done > $R/scale4.txt
python3 -c "
import json,glob
runs=[]
for f in sorted(glob.glob('$R/rec-*.json')):
  d=json.load(open(f)); runs+=d.get('runs',[])
ok=[r for r in runs if r.get('success') or r.get('epoch_100') ]
print('runs',len(runs)); print(json.dumps(runs[0])[:400])"
cd $R && tar czf ../models.tgz models && rm -rf models
cd $OUT && tar czf r.tgz r && rm -rf r
