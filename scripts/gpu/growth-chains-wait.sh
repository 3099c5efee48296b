# Sourced by sweep51.sh and later, in the build tree after setup.sh, with $D the daemon's folder
# (growth-chains.sh) and $R, $OUT set:
#     source $ROOT/scripts/gpu/growth-chains-wait.sh WAIT [stop]
# Waits WAIT seconds (or until the chains are done); with stop, ends the daemon after the runs in
# flight. Then prints the runs so far (the best 8, the exact circuits, the solved chains) and packs
# the daemon's folder, less its logs and models, into $OUT/gc.tgz.
end=$(( $(date +%s) + ${1:-540} ))
while [ $(date +%s) -lt $end ] && [ ! -e $D/finished ]; do sleep 10; done
[ "${2:-}" = stop ] && { touch $D/stop; while [ ! -e $D/finished ] && [ $(date +%s) -lt $((end + 50)) ]; do sleep 2; done; }
echo "runs: $(wc -l < $D/runs.csv)  in flight: $(ls $D/g*.out 2>/dev/null | wc -l)  abandoned: $(grep -c ',A$' $D/runs.csv)"
sort -t, -k4,4n $D/runs.csv | head -8 | cut -d, -f1-7
for f in $D/exact-*.out; do [ -f $f ] && { echo "$f:"; grep -E "^(best hard|repair|evolve|target|result)" $f; }; done
ls $D/solved-* 2>/dev/null && head $D/solved-*
tail -3 /tmp/gc.log
cp -r $D $R/ 2>/dev/null; rm -f $R/gc/l*.csv $R/gc/g*.json $R/gc/g*.out
cd $OUT && tar czf gc.tgz r && rm -rf r
