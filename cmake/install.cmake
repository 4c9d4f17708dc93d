# What `cmake --install build --prefix P` puts into P besides the programs (each module installs
# its own): the modeler library as a CMake package, the documentation, the examples the README
# runs, and man pages.
#
#   P/bin/            modeler, ompbench (and its workers), ompscan, ompdash
#   P/lib/            libompscan.so, libompscan_symbolize.so, the modeler's static libraries
#   P/lib/cmake/ompscale/   find_package(ompscale) -> ompscale::modeler
#   P/include/ompscale/     the modeler's public headers (and common/, platforms/ they include)
#   P/include/ompscan.h     ompscan's manual-region API
#   P/share/ompscale/       platforms/ (descriptions), examples/ (data/examples)
#   P/share/doc/ompscale/   README.md, docs/
#   P/share/man/man1/       one page per tool, with every subcommand's help
#   P/lib/python3.X/dist-packages/ompscale/   the Python module (python/CMakeLists.txt)
#
# Every installed tool finds its files relative to its own binary (../share/ompscale,
# ../lib), so the prefix can move; tests/install/install_test.sh checks it.
include(CMakePackageConfigHelpers)

install(TARGETS ompscale_modeler ompscale_platforms ompscale_common EXPORT ompscaleTargets
        ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
install(EXPORT ompscaleTargets NAMESPACE ompscale:: DESTINATION lib/cmake/ompscale)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ompscaleConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ompscaleConfig.cmake
                              INSTALL_DESTINATION lib/cmake/ompscale)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ompscaleConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ompscaleConfig.cmake
              ${PROJECT_BINARY_DIR}/ompscaleConfigVersion.cmake
        DESTINATION lib/cmake/ompscale)
# The headers keep their paths below include/ompscale, so `#include "modeler/fit.h"` reads as
# inside the project.
foreach(module common platforms modeler)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${module}/ DESTINATION include/ompscale/${module}
          FILES_MATCHING PATTERN "*.h" PATTERN "tool" EXCLUDE)
endforeach()

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/ompscale)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/ompscale/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/examples/ DESTINATION share/ompscale/examples)

# Man pages from the tools' own help (help2man, when installed): the tool's help, then each
# subcommand's (cmake/man_page.cmake).
# Not in sanitizer builds: their tools are for the tests, and would run here under the sanitizers.
find_program(OMPSCALE_HELP2MAN help2man)
if(OMPSCALE_HELP2MAN AND NOT OMPSCALE_SANITIZE)
  set(man_pages "")
  foreach(entry
          "modeler|modeler|scaling models (PMNF) of OpenMP construct costs|fit,plot,predict,compare"
          "ompbench|microbench|microbenchmarks of OpenMP constructs|list,platform,import-epcc,summary"
          "ompscan|regions|region analysis of OpenMP applications through OMPT|run,report"
          "ompdash|dashboard|nightly history, regressions and site of ompscale results|ingest,list,regressions,render,nightly")
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 tool)
    list(GET fields 1 module)
    list(GET fields 2 summary)
    list(GET fields 3 subcommands)
    set(page ${PROJECT_BINARY_DIR}/man/${tool}.1)
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:${tool}> -DNAME=${tool} "-DSUMMARY=${summary}"
              "-DSUBCOMMANDS=${subcommands}" -DHELP2MAN=${OMPSCALE_HELP2MAN} -DOUTPUT=${page}
              -P ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
      DEPENDS ${tool} ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
      COMMENT "Man page of ${tool}" VERBATIM)
    list(APPEND man_pages ${page})
  endforeach()
  add_custom_target(ompscale_man_pages ALL DEPENDS ${man_pages})
  install(FILES ${man_pages} DESTINATION share/man/man1)
elseif(NOT OMPSCALE_HELP2MAN)
  message(STATUS "help2man not found: no man pages (scripts/install-deps.sh installs it)")
endif()
