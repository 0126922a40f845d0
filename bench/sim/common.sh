# Sourced by the experiments of bench/sim/: the platforms and the simulator run they share.
#
#   sim_results          the folder the experiments write their results into: SIM_RESULTS
#                        (relative to the repository root, or absolute), default bench/results/sim,
#                        the checked-in results; bench/sim/sweep.sh gives its own.
#   sim_deb_src          adds a deb-src entry for bookworm to apt's sources if there is none (as
#                        root), for `apt-get source` (SimGrid's and hpcc's sources).
#   sim_platform P DIR   sets plat_gen (the generator's command), plat_what (one line),
#                        plat_speed (Gflop/s a core), plat_suffix (for file names) and plat_cfg
#                        (SimGrid options) from PLATFORM (bgp, the default; fattree; slowtop;
#                        star; machine), and writes DIR/plat.xml and
#                        DIR/plat.hosts for P ranks.
#   sim_hugepages        prints a hugetlbfs folder of 2 MiB pages with one free (as root it mounts
#                        /dev/hugepages and reserves pages where there are none); fails without.
#   sim_run P DIR PROG ARGS...
#                        runs PROG under smpirun in the model mode (HLA_SIM=model) on that
#                        platform and prints its result lines, then one JSON line with the
#                        simulator's wall time and the memory it took.
#
# bgp: the Blue Gene/P-like torus (bench/platforms/bgp_like.sh, 4 cores of 3.4 Gflop/s a node;
# P = 64, 256, 1024, 4096 or 16384; TORUS="X Y Z" with X Y Z = P/4 for other dimensions).
# fattree: the full-bisection fat tree of 64-core nodes at 35 Gflop/s a core
# (bench/platforms/fat_tree.sh P/64 1); slowtop: the same tree with 4:1 oversubscribed uplinks
# (fat_tree.sh P/64 4); star: the same nodes on one switch, every route as long (star.sh P/64); P a
# power of two, at least 128.
# machine: the machine of the machine file MACHINE (bench/platforms/from_machine.py: its nodes of
# its cores, its kernel rates and links, enough nodes for P ranks), run with SMPI's bandwidth and
# latency factors off (plat_cfg), as the probe's numbers already are what messages get.

sim_results=${SIM_RESULTS:-bench/results/sim}

sim_deb_src() {
  grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
  cat > /etc/apt/sources.list.d/hla-deb-src.sources << 'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  apt-get update -qq
}

sim_hugepages() {
  local mnt free kb=/sys/kernel/mm/hugepages/hugepages-2048kB
  [ -d $kb ] || return 1
  mnt=$(awk '$3 == "hugetlbfs" && $4 ~ /pagesize=2M/ {print $2; exit}' /proc/mounts)
  if [ -z "$mnt" ]; then
    [ "$(id -u)" = 0 ] && mkdir -p /dev/hugepages &&
      mount -t hugetlbfs -o pagesize=2M none /dev/hugepages 2> /dev/null || return 1
    mnt=/dev/hugepages
  fi
  [ -w "$mnt" ] || return 1
  free=$(cat $kb/free_hugepages)
  # One page a simulation (its file of one block), a few for runs side by side.
  if ((free < 1)) && [ -w $kb/nr_hugepages ]; then
    echo $(($(cat $kb/nr_hugepages) + 4)) > $kb/nr_hugepages 2> /dev/null
    free=$(cat $kb/free_hugepages)
  fi
  ((free >= 1)) && echo "$mnt"
}

sim_platform() {
  local P=$1 dir=$2 dims over=1 cores
  plat_cfg=
  case ${PLATFORM:-bgp} in
    bgp)
      case $P in
        64) dims="4 4 1" ;; 256) dims="4 4 4" ;; 1024) dims="8 8 4" ;; 4096) dims="8 8 16" ;;
        16384) dims="16 16 16" ;;
        *) echo "bench/sim: P = 64, 256, 1024, 4096 or 16384 on bgp" >&2; return 2 ;;
      esac
      dims=${TORUS:-$dims} # TORUS="X Y Z": another torus of P/4 nodes
      plat_gen="bench/platforms/bgp_like.sh $dims" plat_what="P/4 nodes of 4 cores, 3-D torus"
      plat_speed=3.4 plat_suffix= ;;
    fattree | slowtop)
      if ((P < 128 || P % 64 != 0)); then echo "bench/sim: P = 64 NODES, NODES >= 2" >&2; return 2; fi
      plat_what="P/64 nodes of 64 cores, full-bisection fat tree"
      if [ "$PLATFORM" = slowtop ]; then over=4 plat_what="P/64 nodes of 64 cores, fat tree with 4:1 uplinks"; fi
      # 4 nodes share an uplink: leaves of 4 or more nodes, so 8 nodes at least (fat_tree.sh)
      if ((over == 4 && P < 512)); then echo "bench/sim: PLATFORM=slowtop needs P >= 512" >&2; return 2; fi
      plat_gen="bench/platforms/fat_tree.sh $((P / 64)) $over" plat_speed=35 plat_suffix=_$PLATFORM ;;
    star)
      if ((P < 128 || P % 64 != 0)); then echo "bench/sim: P = 64 NODES, NODES >= 2" >&2; return 2; fi
      plat_gen="bench/platforms/star.sh $((P / 64))" plat_what="P/64 nodes of 64 cores on one switch"
      plat_speed=35 plat_suffix=_star ;;
    machine)
      [ -f "${MACHINE:-}" ] || { echo "bench/sim: PLATFORM=machine needs MACHINE=<machine file>" >&2; return 2; }
      read -r cores plat_speed < <(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["machines"][0]
print(m["cores_per_node"], m["gemm_rate"] / 1e9)' "$MACHINE")
      plat_gen="bench/platforms/from_machine.py $MACHINE" plat_suffix=_machine
      plat_what="nodes of $cores cores as probed in $MACHINE"
      plat_cfg="--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1"
      # NODE_MEMORY=probe: the nodes' memory at the probe's copy rate (from_machine.py --memory)
      if [ -n "${NODE_MEMORY:-}" ]; then
        if [ "$NODE_MEMORY" != probe ]; then
          echo "bench/sim: NODE_MEMORY=probe on PLATFORM=machine" >&2
          return 2
        fi
        plat_gen="$plat_gen --memory" plat_what="$plat_what, memory at its copy rate"
        plat_suffix=${plat_suffix}_mem plat_cfg="$plat_cfg --cfg=maxmin/precision:1e-4"
      fi
      python3 $plat_gen "$dir/plat" $(((P + cores - 1) / cores))
      return ;;
    *) echo "bench/sim: PLATFORM = bgp, fattree, slowtop, star or machine" >&2; return 2 ;;
  esac
  # NODE_MEMORY (e.g. 160GBps on the fat tree, 6.8GBps on the torus): the nodes' memory, a link
  # their transfers share (the generators' MEMORY; needs the patched SimGrid). SimGrid's solver
  # stops with "Cannot saturate more a constraint that has no active element" on these links at
  # its default precision (1e-5; the LU on 16 x 16 at 256 ranks on the fat tree); 1e-4 moves
  # nothing checked without them (the same run: the same time to 0.1 ms).
  if [ -n "${NODE_MEMORY:-}" ]; then
    plat_what="$plat_what, memory $NODE_MEMORY a node" plat_suffix=${plat_suffix}_mem
    plat_cfg="--cfg=maxmin/precision:1e-4"
  fi
  # shellcheck disable=SC2086
  bash $plat_gen "$dir/plat" ${NODE_MEMORY:-}
}

sim_run() {
  local P=$1 dir=$2 start before sampler
  shift 2
  # The memory the run really takes: SMPI maps its folded shared blocks many times, which
  # getrusage's peak RSS counts once per mapping; MemAvailable's lowest point during the run does
  # not.
  avail() { awk '/MemAvailable/{print $2}' /proc/meminfo; }
  # A simulation that would take the machine's last memory (the buffers of SimGrid's MPI_Reduce,
  # which the 3D multiply's reduction of C's layers goes through, are real memory even in the model
  # mode) is stopped before the kernel's OOM killer picks a process: below SIM_MEM_FLOOR_MIB
  # (default 1024) MiB available, the simulator is killed.
  local floor=$((${SIM_MEM_FLOOR_MIB:-1024} * 1024))
  before=$(avail) start=$(date +%s)
  rm -f "$dir/pid" "$dir/stopped"
  (while :; do
    a=$(avail)
    echo "$a"
    if ((a < floor)) && [ -s "$dir/pid" ]; then
      echo "# stopped by bench/sim/common.sh: available memory under ${SIM_MEM_FLOOR_MIB:-1024} MiB" > "$dir/stopped"
      run=$(cat "$dir/pid") kids=$(pgrep -P "$(cat "$dir/pid")")
      kill -TERM "$run" # smpirun removes its temporary files and stops the simulator
      sleep 3
      kill -KILL $kids 2> /dev/null
      break
    fi
    sleep 1
  done > "$dir/mem") &
  sampler=$!
  echo "# platform: $plat_gen ($plat_what)"
  local probe=1e-5 # what a failed MPI_Iprobe costs (below), unless SIM_CFG sets another
  [[ " ${SIM_CFG:-} " =~ smpi/iprobe:([^ ]*) ]] && probe=${BASH_REMATCH[1]}
  echo "# smpi/iprobe: $probe s"
  # The folded shared blocks on one huge page (SIM_HUGEPAGES=no: SimGrid's file in /tmp, blocks of
  # 64 MiB). SMPI backs every rank's view of them with one file, which SimGrid 3.32 makes in /tmp.
  # Where /tmp is a disk's file system the kernel's writeback cleans that file's dirty pages every
  # few seconds and write-protects them in every rank's mapping, so each rank's next store into its
  # matrix (the LU's row swaps) faults again: n = 32768 at 1,024 ranks of the torus simulated 0.05
  # s of the LU a minute, at 35,000 faults a second. A hugetlbfs file is never written back, and a
  # block of one 2 MiB page spares the TLB too: the whole 9.44 s in 7-11 minutes beside another
  # simulation, to the same simulated times (bench/results/sim/README.md, "The folded block on a
  # huge page").
  local blocks="--cfg=smpi/shared-malloc-blocksize:67108864" hp=
  if [ "${SIM_HUGEPAGES:-yes}" != no ] && hp=$(sim_hugepages); then
    blocks="--cfg=smpi/shared-malloc-blocksize:2097152 --cfg=smpi/shared-malloc-hugepage:$hp"
  fi
  echo "# shared blocks: $([ -n "$hp" ] && echo "2 MiB huge pages in $hp" || echo "64 MiB in /tmp")"
  # SMPI maps each rank's stack and its views of the folded shared blocks one by one: about 9
  # mappings a rank at 16,384 ranks, past Linux's default limit of 65,530 a process ("Could not
  # map folded virtual memory"); blocks of 2 MiB take more views.
  local maps=$((${hp:+4 *} 16 * P))
  if (($(cat /proc/sys/vm/max_map_count) < maps)); then
    sysctl -qw vm.max_map_count=$maps ||
      echo "bench/sim: as root, sysctl -w vm.max_map_count=$maps (SMPI needs more mappings)" >&2
  fi
  # smpi/allgather:mpich: SimGrid's own MPI_Allgather posts all P (P - 1) messages at once, which
  # its network solver takes O(P^4) to simulate (the LU's node groups, one allgather over all
  # ranks, took 17 s at 128 ranks and did not end in 10 minutes at 256); MPICH's choice (recursive
  # doubling, Bruck or a ring, by size) is what a real MPI does and simulates in seconds.
  # The same holds for SimGrid's default reduce, allreduce (a reduce, then a broadcast), gather and
  # barrier: flat, each a waitall over P requests at rank 0, which its kernel takes about P^3 to
  # simulate (one MPI_Allreduce over 4,096 ranks: 32 s of the simulator's time; one MPI_Barrier
  # 15 s). Binomial trees take 0.4 and 0.3 s there, and simulated times move by under 1 %.
  # smpi/privatization:no: hla has no global state that differs between ranks (src/kernels/sim.c's
  # switch is the same on all), and copying the program's data segment for each of 4,096 ranks
  # costs more than the rest of the set-up.
  # smpi/iprobe:1e-5 (since 2026-11-30): SimGrid's MPI_Iprobe sleeps smpi/iprobe (default 0.1 ms)
  # before it looks, so that a loop of probes advances the clock. HPL finds each L panel of its
  # ring broadcast by such a loop (HPL_1rinM.c), so every hop of it came 0.1 ms late or more: HPL
  # at 256 ranks of the torus on 16 x 16 took 0.526 s that way, 0.46 s with 1 us a probe (a real
  # MPI_Iprobe's order), 0.953 s with SimGrid's growing default. 10 us keeps a hop's delay under
  # the torus's 1.5 us link latency times a few and the simulator's spins affordable
  # (bench/results/sim/README.md, "HPL's probes"); bench/sim/hpl.sh sets 1 us, since its waiting
  # ranks wait in MPI_Recv instead of spinning (bench/sim/hpl/probe_wait.c). hla calls MPI_Iprobe
  # only on a node's board, which the SMPI build has not.
  # smpi/test:1e-6, smpi/grow-injected-times:no (since 96abf29): SimGrid's default charges an
  # MPI_Test 0.1 ms of simulated time, times a count of failed tests that all simulated ranks share
  # (a static in its Request::test), so a rank's test grows costlier with every other rank's
  # failed one. The probe's overlap of a broadcast behind a dgemm that tests it came out 0.28 on
  # the BG/P-like torus that way (0.70 without the growth, 1.00 with a microsecond a test, which a
  # real MPI_Test takes); the multiplies, which test a few times a step, move by 0.6-3.7 % on the
  # torus and by up to a fifth on the fat tree (bench/results/sim/test_cost_2026-11-27.txt).
  # smpi_colls at warning: SimGrid's default allreduce logs a line per call on small communicators.
  # SIM_MALLOC (default: tcmalloc, Debian libtcmalloc-minimal4, where installed; none: glibc's):
  # SimGrid allocates and frees a few objects a message (requests, activities, their closures), and
  # tcmalloc serves them faster than glibc's malloc; the 16,384-rank sample of
  # bench/results/sim/simulator_cost_2026-11-27.txt 11 took 114 s with it against 136 s (jemalloc
  # 128 s), the same simulated time to the last digit.
  local pre=${SIM_MALLOC:-/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4}
  [ -f "$pre" ] || pre=
  {
    (echo $BASHPID > "$dir/pid"
    LD_PRELOAD=$pre${LD_PRELOAD:+:$LD_PRELOAD} HLA_SIM=model HLA_PLAN=off exec smpirun -np "$P" -platform "$dir/plat.xml" -hostfile "$dir/plat.hosts" \
      --cfg=smpi/host-speed:${plat_speed}Gf --cfg=smpi/simulate-computation:no \
      --cfg=smpi/shared-malloc:global $blocks \
      --cfg=smpi/allgather:mpich --cfg=smpi/allreduce:redbcast --cfg=smpi/reduce:binomial \
      --cfg=smpi/gather:ompi_binomial --cfg=smpi/barrier:ompi_tree --cfg=smpi/privatization:no \
      --cfg=smpi/test:1e-6 --cfg=smpi/grow-injected-times:no --cfg=smpi/iprobe:$probe \
      --log=smpi_colls.thres:warning $plat_cfg ${SIM_CFG:-} "$@")
    echo $? > "$dir/rc"
  } 2>&1 | grep --line-buffered -vP '^$|^\[(?!.*/(CRITICAL|ERROR)\])' || true # SimGrid's log but
  # its errors out; a run stopped early keeps the points it finished
  kill $sampler 2> /dev/null || true # gone already if it stopped the run
  local rc
  rc=$(cat "$dir/rc" 2> /dev/null || echo 1)
  if [ -f "$dir/stopped" ]; then
    cat "$dir/stopped"
    rc=0
  elif [ "$rc" != 0 ]; then
    echo "# the simulator failed (exit $rc): the points above are all it finished"
  fi
  # memory_used_mib is the whole machine's: a run beside another counts what both take, or less
  echo "{\"bench\":\"$(basename "$1")_simulator\",\"P\":$P,\"wall_seconds\":$(($(date +%s) - start)),\"memory_used_mib\":$(((before - $(sort -n "$dir/mem" | head -1)) / 1024))}"
  return "$rc"
}
