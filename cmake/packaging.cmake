# Debian packages with CPack: `cpack -G DEB` in the build directory makes two,
#   small         the binary, its manual pages and completion scripts (component runtime)
#   libsmall-dev  libsmall.a, its headers and the CMake package (component development)
# docs/install.md explains the choices and the (informational) lintian tags that remain.

set(SMALL_PACKAGE_CONTACT "small maintainers <dev@small.invalid>" CACHE STRING
    "Maintainer field of the Debian packages (set a real address for a release)")

# Debian policy: every package has usr/share/doc/<package>/copyright and, being
# native (no Debian revision), changelog.gz, compressed with gzip -9n.
string(TIMESTAMP SMALL_PACKAGE_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)  # honours SOURCE_DATE_EPOCH
set(SMALL_DEBIAN_DIR ${PROJECT_BINARY_DIR}/debian)
foreach(package small libsmall-dev)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in ${SMALL_DEBIAN_DIR}/${package}/changelog @ONLY)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/copyright.in ${SMALL_DEBIAN_DIR}/${package}/copyright @ONLY)
endforeach()
if(SMALL_BUILD_DOCS AND SMALL_GZIP)
  set(SMALL_CHANGELOGS)
  foreach(package small libsmall-dev)
    set(changelog ${SMALL_DEBIAN_DIR}/${package}/changelog)
    add_custom_command(OUTPUT ${changelog}.gz
      COMMAND ${SMALL_GZIP} -9nkf ${changelog}
      DEPENDS ${changelog}
      COMMENT "Compressing the Debian changelog of ${package}")
    list(APPEND SMALL_CHANGELOGS ${changelog}.gz)
  endforeach()
  add_custom_target(small_debian_changelogs ALL DEPENDS ${SMALL_CHANGELOGS})
  install(FILES ${SMALL_DEBIAN_DIR}/small/copyright ${SMALL_DEBIAN_DIR}/small/changelog.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/small COMPONENT runtime)
  install(FILES ${SMALL_DEBIAN_DIR}/libsmall-dev/copyright ${SMALL_DEBIAN_DIR}/libsmall-dev/changelog.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/libsmall-dev COMPONENT development)
endif()

set(CPACK_PACKAGE_NAME small)
set(CPACK_PACKAGE_VENDOR "small")
set(CPACK_PACKAGE_CONTACT "${SMALL_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL runtime development)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SMALL_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME small)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION devel)
# dpkg-shlibdeps (dpkg-dev) reads the binary's needs: with SMALL_LINK_STATIC only libc6.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# libgit2 is loaded with dlopen (base/git_repo.cpp), which dpkg-shlibdeps cannot see.
string(REPLACE "." ";" SMALL_GIT2_VERSION_PARTS "${LIBGIT2_VERSION}")
list(GET SMALL_GIT2_VERSION_PARTS 0 SMALL_GIT2_MAJOR)
list(GET SMALL_GIT2_VERSION_PARTS 1 SMALL_GIT2_MINOR)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "libgit2-${SMALL_GIT2_MAJOR}.${SMALL_GIT2_MINOR}")
# Graphviz's libgvc is loaded with dlopen only to draw SVG (view/graphviz.cpp), and
# cpp-httplib only by `small serve` (serve/http_server.cpp): recommended, not required.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "libgvc6, libcpp-httplib0.11")
# Descriptions: the first line is the synopsis; CPack indents the rest and
# turns the empty line into " ." (no CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack
# would put it before each of these as a second synopsis).
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "durable, agent-legible project state (SMALL protocol CLI)
small keeps a project's intent, constraints, plan, progress and handoff as
five YAML artifacts under .small/, validated by JSON Schemas and invariants,
with an append-only progress log and a content-addressed replay id. Coding
agents and people resume work from them.

This package holds the small command, its manual pages and the bash, zsh and
fish completion scripts.")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libsmall-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
# libsmall.a links these privately; smallConfig.cmake finds them again.
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "libfyaml-dev, libgit2-dev, nettle-dev, nlohmann-json3-dev, pkg-config")
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION "SMALL protocol library (static library and headers)
libsmall is the library behind the small command: reading, validating and
writing the five SMALL artifacts, the replay id, the progress log and the
workspace lock, without terminal I/O.

This package holds libsmall.a, its C++20 headers and a CMake package:
find_package(small) and link small::small.")

include(CPack)
