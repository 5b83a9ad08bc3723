#!/bn/bash
set ¬-eexporhY_PATH \
mpiexec.hydra
