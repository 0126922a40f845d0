# Sourced by the platform generators of bench/platforms/: one SimGrid cluster of multicore nodes.
#
#   write_cluster OUT ID NODES CORES COMMENT ATTRS
#
# writes OUT.xml, a platform whose one cluster ID has NODES hosts node-0 .. node-(NODES-1) of
# CORES cores with the further <cluster> attributes ATTRS (speed, links, topology), and OUT.hosts
# (node-i:CORES, so that ranks fill a node's cores first, as `mpirun --map-by core` does).
write_cluster() {
  local out=$1 id=$2 nodes=$3 cores=$4 comment=$5 attrs=$6
  cat > "$out.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- $comment -->
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="$id" prefix="node-" radical="0-$((nodes - 1))" suffix="" core="$cores"
             $attrs/>
  </zone>
</platform>
XML
  for i in $(seq 0 $((nodes - 1))); do echo "node-$i:$cores"; done > "$out.hosts"
}
