# CTest `package.consumer`: `cmake --install` of the build tree into a fresh
# prefix, the installed layout checked, then this folder's consumer project
# configured with find_package(small) against that prefix, built and run.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX=... [-DLAUNCHER=...] -P run.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# Everything the issue lists, where each tool looks for it.
foreach(path bin/small bin/git-merge-small share/man/man1/git-merge-small.1 share/man/man1/small.1 share/man/man1/small-plan.1 share/man/man1/small-run.1
             share/bash-completion/completions/small share/zsh/vendor-completions/_small
             share/fish/vendor_completions.d/small.fish lib/libsmall.a include/small/model/replay_id.hpp
             lib/cmake/small/smallConfig.cmake lib/cmake/small/smallConfigVersion.cmake
             lib/cmake/small/smallTargets.cmake)
  if(NOT EXISTS ${prefix}/${path} AND NOT EXISTS ${prefix}/${path}.gz)
    message(FATAL_ERROR "cmake --install did not install ${path}")
  endif()
endforeach()

# One page per command the binary has.
run(${prefix}/bin/small __man --list)
string(REGEX MATCHALL "[^\n]+" commands "${out}")
foreach(command ${commands})
  if(NOT EXISTS ${prefix}/share/man/man1/small-${command}.1 AND NOT EXISTS ${prefix}/share/man/man1/small-${command}.1.gz)
    message(FATAL_ERROR "no manual page for small ${command}")
  endif()
endforeach()

set(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX})
if(LAUNCHER)
  list(APPEND configure -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
run(${configure})
# The package found must be the one just installed, not another on the system.
file(STRINGS ${WORK_DIR}/build/CMakeCache.txt found REGEX "^small_DIR:")
if(NOT found STREQUAL "small_DIR:PATH=${prefix}/lib/cmake/small")
  message(FATAL_ERROR "find_package(small) found ${found}, not ${prefix}/lib/cmake/small")
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
string(STRIP "${out}" id)

# The library's replay id is the installed CLI's for the same two files.
file(WRITE ${WORK_DIR}/ws/.small/intent.small.yml
  "small_version: \"1.0.0\"\nowner: \"human\"\nintent: \"Build a widget\"\n"
  "scope:\n  include: []\n  exclude: []\nsuccess_criteria: []\n")
file(WRITE ${WORK_DIR}/ws/.small/plan.small.yml
  "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n  - id: \"task-1\"\n    title: \"Initial task\"\n")
run(${prefix}/bin/small replay-id --dir ${WORK_DIR}/ws)
string(STRIP "${out}" cli_id)
if(NOT id STREQUAL cli_id)
  message(FATAL_ERROR "consumer printed ${id}; small replay-id printed ${cli_id}")
endif()
message(STATUS "consumer: replay id ${id}, as small replay-id")
file(REMOVE_RECURSE ${WORK_DIR})
