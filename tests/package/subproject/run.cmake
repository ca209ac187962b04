# CTest `package.subproject`: configures tests/package/subproject (a parent that
# add_subdirectory()s small) and checks small's defaults there: no tests,
# benchmarks, docs or install rules, no CPack configuration. Configure only.
#   cmake -DSMALL_SOURCE_DIR=... -DWORK_DIR=... -DCXX=... -P run.cmake
cmake_policy(VERSION 3.22)
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${WORK_DIR} -DSMALL_SOURCE_DIR=${SMALL_SOURCE_DIR}
          -DCMAKE_CXX_COMPILER=${CXX}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the parent project failed (${rc}):\n${out}\n${err}")
endif()
file(STRINGS ${WORK_DIR}/CMakeCache.txt cache REGEX "^SMALL_(BUILD_TESTS|BUILD_BENCH|BUILD_DOCS|INSTALL):BOOL=")
foreach(option SMALL_BUILD_TESTS SMALL_BUILD_BENCH SMALL_BUILD_DOCS SMALL_INSTALL)
  if(NOT "${option}:BOOL=OFF" IN_LIST cache)
    message(FATAL_ERROR "under add_subdirectory(), ${option} is not OFF by default: ${cache}")
  endif()
endforeach()
file(READ ${WORK_DIR}/small/cmake_install.cmake install_script)
if(install_script MATCHES "file\\(INSTALL")
  message(FATAL_ERROR "under add_subdirectory(), small generates install rules")
endif()
if(EXISTS ${WORK_DIR}/CPackConfig.cmake)
  message(FATAL_ERROR "under add_subdirectory(), small sets up CPack")
endif()
if(EXISTS ${WORK_DIR}/small/tests OR EXISTS ${WORK_DIR}/small/bench)
  message(FATAL_ERROR "under add_subdirectory(), small configures its tests or benchmarks")
endif()
message(STATUS "add_subdirectory(small): library and CLI only")
file(REMOVE_RECURSE ${WORK_DIR})
