# CTest `package.consumer`: `cmake --install` of the build tree into a fresh
# prefix, the installed layout checked, then this folder's consumer project
# built against that prefix twice, with find_package(small) and with
# pkg-config, and run. With -DSHARED_FROM=<small's source>, CTest
# `package.shared`: a BUILD_SHARED_LIBS=ON build of small is configured and
# built first, and installed instead (libsmall.so, the CLI linking it).
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX=... [-DLAUNCHER=...]
#         [-DSHARED_FROM=...] -P run.cmake
function(run)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${library_path}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(library_path "")
set(library lib/libsmall.a)
file(REMOVE_RECURSE ${WORK_DIR})
if(SHARED_FROM)
  set(BUILD_DIR ${WORK_DIR}/small-build)
  set(configure ${CMAKE_COMMAND} -S ${SHARED_FROM} -B ${BUILD_DIR} -DCMAKE_BUILD_TYPE=Release
      -DBUILD_SHARED_LIBS=ON -DSMALL_BUILD_TESTS=OFF -DSMALL_BUILD_BENCH=OFF -DCMAKE_CXX_COMPILER=${CXX})
  if(LAUNCHER)
    list(APPEND configure -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
  endif()
  run(${configure})
  cmake_host_system_information(RESULT jobs QUERY NUMBER_OF_LOGICAL_CORES)
  run(${CMAKE_COMMAND} --build ${BUILD_DIR} -j ${jobs})
  # The installed binaries find libsmall.so here (no RPATH in an install).
  set(library_path ${prefix}/lib)
  set(library lib/libsmall.so)
endif()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# Everything the issue lists, where each tool looks for it.
foreach(path bin/small bin/git-merge-small share/man/man1/git-merge-small.1 share/man/man1/small.1 share/man/man1/small-plan.1 share/man/man1/small-run.1
             share/bash-completion/completions/small share/zsh/vendor-completions/_small
             share/fish/vendor_completions.d/small.fish ${library} include/small/model/replay_id.hpp
             lib/pkgconfig/small.pc
             lib/cmake/small/smallConfig.cmake lib/cmake/small/smallConfigVersion.cmake
             lib/cmake/small/smallTargets.cmake)
  if(NOT EXISTS ${prefix}/${path} AND NOT EXISTS ${prefix}/${path}.gz)
    message(FATAL_ERROR "cmake --install did not install ${path}")
  endif()
endforeach()

# The `git merge -s small` strategy: a link to small beside it.
if(NOT IS_SYMLINK ${prefix}/bin/git-merge-small)
  message(FATAL_ERROR "cmake --install did not install bin/git-merge-small as a link to small")
endif()
file(READ_SYMLINK ${prefix}/bin/git-merge-small strategy_target)
if(NOT strategy_target STREQUAL "small")
  message(FATAL_ERROR "bin/git-merge-small leads to ${strategy_target}, not small")
endif()

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
if(SHARED_FROM)
  run(ldd ${WORK_DIR}/build/consumer)
  if(NOT out MATCHES "libsmall\\.so")
    message(FATAL_ERROR "the consumer does not link libsmall.so:\n${out}")
  endif()
endif()

# The same consumer through pkg-config, compiled by hand as a Makefile would.
run(${CMAKE_COMMAND} -E env "PKG_CONFIG_PATH=${prefix}/lib/pkgconfig" pkg-config --cflags --libs small)
string(STRIP "${out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} -std=c++20 -O1 ${SOURCE_DIR}/main.cpp -o ${WORK_DIR}/pc-consumer ${flags})
run(${WORK_DIR}/pc-consumer)
string(STRIP "${out}" pc_id)
if(NOT pc_id STREQUAL id)
  message(FATAL_ERROR "the pkg-config consumer printed ${pc_id}, the find_package one ${id}")
endif()

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
message(STATUS "consumer (find_package and pkg-config): replay id ${id}, as small replay-id")
file(REMOVE_RECURSE ${WORK_DIR})
