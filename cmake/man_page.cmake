# One man page of a tool from its own help: help2man reads `TOOL --help` and `TOOL --version`;
# each subcommand's `TOOL SUB --help` follows in a SUBCOMMANDS section.
#   cmake -DTOOL=PATH -DNAME=NAME -DSUMMARY=TEXT -DSUBCOMMANDS=a,b -DHELP2MAN=PATH -DOUTPUT=FILE
#         -P man_page.cmake
set(ENV{COLUMNS} 80)
# Run by name from PATH, so that usage lines say "modeler fit", not the build directory's path.
get_filename_component(tool_directory ${TOOL} DIRECTORY)
set(ENV{PATH} "${tool_directory}:$ENV{PATH}")
execute_process(COMMAND ${NAME} --version OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX REPLACE " .*" "" version "${version}")
string(REPLACE "," ";" subcommands "${SUBCOMMANDS}")
set(include_text "[SUBCOMMANDS]\n")
foreach(sub IN LISTS subcommands)
  execute_process(COMMAND ${NAME} ${sub} --help OUTPUT_VARIABLE help RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NAME} ${sub} --help exited ${status}")
  endif()
  # roff: backslashes escaped, a line starting with . or ' kept as text.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND include_text ".SS \"${NAME} ${sub}\"\n.nf\n${help}.fi\n")
endforeach()
get_filename_component(directory ${OUTPUT} DIRECTORY)
file(MAKE_DIRECTORY ${directory})
file(WRITE ${OUTPUT}.include "${include_text}")
execute_process(COMMAND ${HELP2MAN} --no-info --no-discard-stderr --name=${SUMMARY}
                        "--version-string=${NAME} ${version}" --include=${OUTPUT}.include
                        --output=${OUTPUT} ${NAME}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "help2man failed on ${NAME} (exit ${status})")
endif()
