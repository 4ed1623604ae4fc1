# test_env.sh — sourced by the offload-mode test scripts (test_agent.sh,
# test/rma/agent.sh): the build's mpirun and agent, CLUMPI_NET=agent, and
# exit 99 (skipped as an error) when they are not built.
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
MPIRUN=${MPIRUN:-$top_builddir/src/tools/mpirun}
export MPIRUN
export CLUMPI_NET=agent
export CLUMPI_AGENT_PATH=${CLUMPI_AGENT_PATH:-$top_builddir/netmod/agent/clumpi-agent}
[ -x "$MPIRUN" ] && [ -x "$CLUMPI_AGENT_PATH" ] || { echo "build first"; exit 99; }
