# The test applications of ompscan, shared by the main build (gcc + libgomp, tests/apps/) and the
# clang + libomp sub-build (tests/apps/llvm/). Every tests/apps/*.cc is one application.
#
# They run under the OMPT tool inside processes that load no sanitizer runtime, so their flags are
# fixed here (-O2 -g: optimized like a real application, with debug info for source locations) and
# replace the directory's options, sanitizers included.

# The names of the applications, mandelbrot_nopie included.
function(ompscale_test_app_names out_var)
  file(GLOB sources CONFIGURE_DEPENDS ${OMPSCALE_ROOT}/tests/apps/*.cc)
  set(names "")
  foreach(source IN LISTS sources)
    get_filename_component(name ${source} NAME_WE)
    list(APPEND names ${name})
  endforeach()
  list(APPEND names mandelbrot_nopie)
  set(${out_var} ${names} PARENT_SCOPE)
endfunction()

# One executable named `name` from `source` into `output_dir`; target ompscale_app_<name>.
# Extra arguments are compile options (and -no-pie is a link option).
function(ompscale_add_test_app name source output_dir)
  set(target ompscale_app_${name})
  add_executable(${target} ${source})
  set(compile_options -O2 -g -Wall -Wextra -Wpedantic ${ARGN})
  if(OMPSCALE_WERROR)
    list(APPEND compile_options -Werror)
  endif()
  set(link_options "")
  if("-fno-pie" IN_LIST ARGN)
    list(APPEND link_options -no-pie)
  endif()
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name}
                        RUNTIME_OUTPUT_DIRECTORY ${output_dir}
                        COMPILE_OPTIONS "${compile_options}" LINK_OPTIONS "${link_options}")
  target_include_directories(${target} PRIVATE ${OMPSCALE_ROOT}/tests/apps
                             ${OMPSCALE_ROOT}/regions/include)
  target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX ${CMAKE_DL_LIBS})
endfunction()

# Every application into `output_dir`; sets `out_var` to the list of targets.
function(ompscale_add_test_apps output_dir out_var)
  file(GLOB sources CONFIGURE_DEPENDS ${OMPSCALE_ROOT}/tests/apps/*.cc)
  set(targets "")
  foreach(source IN LISTS sources)
    get_filename_component(name ${source} NAME_WE)
    ompscale_add_test_app(${name} ${source} ${output_dir})
    list(APPEND targets ompscale_app_${name})
  endforeach()
  # A non-PIE executable (load bias 0) for the symbolizer's tests.
  ompscale_add_test_app(mandelbrot_nopie ${OMPSCALE_ROOT}/tests/apps/mandelbrot.cc ${output_dir}
                        -fno-pie)
  list(APPEND targets ompscale_app_mandelbrot_nopie)
  set(${out_var} ${targets} PARENT_SCOPE)
endfunction()
