# src/tools/: mpicc, mpirun/mpiexec.
bin_SCRIPTS += src/tools/mpicc
