# Build-time generation of pipelines, for projects that use dsl (installed: find_package(dsl))
# and for dsl's own tests.
#
#   dsl_add_generator(<name> SOURCES <file>...)
#       An executable <name> built from the generator sources (classes registered with
#       DSL_REGISTER_GENERATOR) and dsl's generator main().
#
#   dsl_add_library(<name> FROM <generator executable>
#                   [GENERATOR <registered name>]      default: <name>
#                   [FUNCTION_NAME <C function name>]  default: <name>
#                   [TARGETS <target string>]          default: host
#                   [PARAMS <param>=<value>...])
#       Runs the generator at build time and gives a library target <name> to link: the static
#       library it writes (the pipeline and the runtime) and the folder of its header
#       <function>.h. It needs nothing else of dsl at link time except Threads and dl.

function(dsl_add_generator name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "dsl_add_generator(${name}): give the generator's SOURCES.")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE dsl::generator_main)
endfunction()

function(dsl_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FROM;GENERATOR;FUNCTION_NAME" "TARGETS;PARAMS")
  if(NOT ARG_FROM)
    message(FATAL_ERROR "dsl_add_library(${name}): say FROM which generator executable "
                        "(made with dsl_add_generator).")
  endif()
  if(NOT ARG_GENERATOR)
    set(ARG_GENERATOR ${name})
  endif()
  if(NOT ARG_FUNCTION_NAME)
    set(ARG_FUNCTION_NAME ${name})
  endif()
  if(NOT ARG_TARGETS)
    set(ARG_TARGETS host)
  endif()
  list(LENGTH ARG_TARGETS target_count)
  if(target_count GREATER 1)
    message(FATAL_ERROR "dsl_add_library(${name}): one target per library (got ${ARG_TARGETS}); "
                        "make one library per target.")
  endif()
  foreach(param IN LISTS ARG_PARAMS)
    if(NOT param MATCHES "^[A-Za-z_][A-Za-z0-9_.]*=")
      message(FATAL_ERROR "dsl_add_library(${name}): PARAMS takes <param>=<value>, not "
                          "\"${param}\".")
    endif()
  endforeach()

  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}.generated)
  set(library ${dir}/${ARG_FUNCTION_NAME}.a)
  set(header ${dir}/${ARG_FUNCTION_NAME}.h)
  add_custom_command(
    OUTPUT ${library} ${header}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${ARG_FROM} -g ${ARG_GENERATOR} -o ${dir} -e static_library,h
            -f ${ARG_FUNCTION_NAME} target=${ARG_TARGETS} ${ARG_PARAMS}
    DEPENDS ${ARG_FROM}
    COMMENT "Generating ${ARG_FUNCTION_NAME} with ${ARG_FROM} (${ARG_GENERATOR})"
    VERBATIM)
  add_custom_target(${name}_generate DEPENDS ${library} ${header})

  add_library(${name} INTERFACE)
  add_dependencies(${name} ${name}_generate)
  target_include_directories(${name} INTERFACE
    ${dir} $<TARGET_PROPERTY:dsl::runtime,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(${name} INTERFACE ${library} Threads::Threads ${CMAKE_DL_LIBS})
endfunction()
