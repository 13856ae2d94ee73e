#!/usr/bin/env bash
# Per-flow throughput of 1 vs 8 independent QD1 flows (uniform 8 KiB random reads) on MQSim's
# stock device (its ssdconfig.xml: 8 ch x 4 chips x 2 dies, MLC, 2 MiB CMT) and on zonesim's
# nvme-ssd preset with `firmware.model = "off"` and MQSim's 2 MiB CMT
# (`ftl.l2p_cache_bytes = 2097152`; the preset itself caches the whole map): the "model off"
# baseline of MCMQ Fig. 6 (docs/validation.md). Both simulators read a map page from flash on
# almost every request (CMT misses), so both show die and channel contention between the flows.
#
# Usage: flows.sh MQSIM_DIR [ZONESIM]
set -uo pipefail
[ $# -ge 1 ] || { sed -n 2,9p "$0"; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
MQ_DIR=$(cd "$1" && pwd)
ZS=${2:-zonesim}
[ -x "$MQ_DIR/MQSim" ] || { echo "no MQSim binary in $MQ_DIR (build it with make -j2)"; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp "$MQ_DIR/ssdconfig.xml" "$T/"
declare -A mq zs
for n in 1 8; do
    cp "$HERE/wl-flows-$n.xml" "$T/"
    (cd "$T" && "$MQ_DIR/MQSim" -i ssdconfig.xml -w "wl-flows-$n.xml" >"mq$n.txt" 2>&1) || { echo "MQSim failed: $T/mq$n.txt"; exit 1; }
    # MQSim prints one "end-to-end request delay:N (us)" line per flow; at QD1 IOPS = 1e6 / delay.
    mq[$n]=$(grep -o 'end-to-end request delay:[0-9]*' "$T/mq$n.txt" | awk -F: '{s+=1e6/$2; k++} END {printf "%.0f", s/k}')
    printf '[r]\nrw=randread\nbs=8k\niodepth=1\nnumjobs=%s\nnumber_ios=20000\n' "$n" >"$T/f$n.fio"
    "$ZS" run --device nvme-ssd --set ftl.l2p_cache_bytes=2097152 --set host.queues=8 --set firmware.model=off --precondition seq \
        --workload "$T/f$n.fio" --json "$T/zs$n.json" >/dev/null || { echo "zonesim failed"; exit 1; }
    zs[$n]=$(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['host']['read']['iops']/$n))" "$T/zs$n.json")
done
echo "| simulator | per-flow IOPS, 1 flow | per-flow IOPS, 8 flows | ratio 8/1 |"
echo "|---|---:|---:|---:|"
for s in MQSim zonesim; do
    if [ $s = MQSim ]; then a=${mq[1]}; b=${mq[8]}; else a=${zs[1]}; b=${zs[8]}; fi
    printf '| %s | %s | %s | %s |\n' $s "$a" "$b" "$(python3 -c "print(f'{$b/$a:.3f}')")"
done
