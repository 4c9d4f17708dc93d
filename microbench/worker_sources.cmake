# The measurement worker's sources: built once per OpenMP runtime, by the main build with its own
# compiler (gcc + libgomp) and by a clang sub-build (clang + libomp). Needs OMPSCALE_ROOT.
file(GLOB OMPSCALE_WORKER_SYNC_SOURCES CONFIGURE_DEPENDS ${OMPSCALE_ROOT}/sync/*.cc)
file(GLOB OMPSCALE_WORKER_CONSTRUCT_SOURCES CONFIGURE_DEPENDS ${OMPSCALE_ROOT}/microbench/constructs/*.cc)
set(OMPSCALE_WORKER_LIB_SOURCES
  # The one number syntax (common/text.h) for job options: it needs the C++ library only.
  ${OMPSCALE_ROOT}/common/text.cc
  ${OMPSCALE_WORKER_SYNC_SOURCES}
  ${OMPSCALE_WORKER_CONSTRUCT_SOURCES}
  ${OMPSCALE_ROOT}/microbench/catalogue.cc
  ${OMPSCALE_ROOT}/microbench/runtime_info.cc
  ${OMPSCALE_ROOT}/microbench/protocol.cc
  ${OMPSCALE_ROOT}/microbench/direct.cc
  ${OMPSCALE_ROOT}/microbench/direct_metrics.cc
  ${OMPSCALE_ROOT}/microbench/epcc.cc
)
set(OMPSCALE_WORKER_MAIN_SOURCES ${OMPSCALE_ROOT}/microbench/worker/main.cc)
