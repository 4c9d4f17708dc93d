# One man page of a tool from its own help: help2man reads `TOOL --help` and `TOOL --version`;
# each subcommand's `TOOL SUB --help` follows in a SUBCOMMANDS section.
#   cmake -DTOOL=PATH -DNAME=NAME -DSUMMARY=TEXT -DSUBCOMMANDS=a,b -DHELP2MAN=PATH -DOUTPUT=FILE
#         -P man_page.cmake
set(ENV{COLUMNS} 80)
string(REPLACE "," ";" subcommands "${SUBCOMMANDS}")
set(include_text "[SUBCOMMANDS]\n")
foreach(sub IN LISTS subcommands)
  execute_process(COMMAND ${TOOL} ${sub} --help OUTPUT_VARIABLE help RESULT_VARIABLE status)
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
                        --include=${OUTPUT}.include --output=${OUTPUT} ${TOOL}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "help2man failed on ${NAME} (exit ${status})")
endif()
