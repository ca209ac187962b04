# Writes the manual pages and the shell completion scripts of the built binary
# into OUT_DIR (man/ and completions/), for install() to copy. Run at build
# time by the small_docs target:
#   cmake -DSMALL=path/to/small -DOUT_DIR=dir [-DGZIP=path/to/gzip] -P generate_docs.cmake
# Both come from the binary's own command tree (`small __man`, `small
# completion`), so they describe exactly the commands and flags it parses.
foreach(var SMALL OUT_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "generate_docs.cmake: ${var} is not set")
  endif()
endforeach()

function(run_small output)
  execute_process(COMMAND ${SMALL} ${ARGN}
    OUTPUT_FILE ${output} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "small ${ARGN} failed (${rc}): ${err}")
  endif()
endfunction()

# A page or script of a removed command must not survive in the build tree.
file(REMOVE_RECURSE ${OUT_DIR}/man ${OUT_DIR}/completions)
file(MAKE_DIRECTORY ${OUT_DIR}/man ${OUT_DIR}/completions)

execute_process(COMMAND ${SMALL} __man --list
  OUTPUT_VARIABLE commands RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR commands STREQUAL "")
  message(FATAL_ERROR "small __man --list failed (${rc})")
endif()
string(REPLACE "\n" ";" commands "${commands}")

set(pages ${OUT_DIR}/man/small.1)
run_small(${OUT_DIR}/man/small.1 __man)
foreach(command ${commands})
  run_small(${OUT_DIR}/man/small-${command}.1 __man ${command})
  list(APPEND pages ${OUT_DIR}/man/small-${command}.1)
endforeach()
# Pages written by hand (git-merge-small(1), for small run as the merge strategy).
foreach(page ${EXTRA_PAGES})
  get_filename_component(name ${page} NAME)
  file(COPY ${page} DESTINATION ${OUT_DIR}/man)
  list(APPEND pages ${OUT_DIR}/man/${name})
endforeach()
# Debian policy: pages compressed with gzip -9n (no name or time stamp inside,
# so the package is reproducible).
if(GZIP)
  execute_process(COMMAND ${GZIP} -9nf ${pages} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip of the manual pages failed (${rc})")
  endif()
endif()

# The names each shell looks for in its completion directory.
run_small(${OUT_DIR}/completions/small completion bash)
run_small(${OUT_DIR}/completions/_small completion zsh)
run_small(${OUT_DIR}/completions/small.fish completion fish)
