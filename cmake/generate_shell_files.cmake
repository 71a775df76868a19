# Renders the man pages and shell completions with the built binary:
#   cmake -DFLASHFIT=path/to/flashfit -DOUTPUT=dir -P generate_shell_files.cmake
# OUTPUT/man/*.1.gz (gzip -9n, as Debian ships man pages; plain .1 without
# gzip), OUTPUT/completions/{flashfit,_flashfit,flashfit.fish}, OUTPUT/generated.stamp.
foreach(var IN ITEMS FLASHFIT OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "generate_shell_files.cmake needs -D${var}=...")
  endif()
endforeach()

file(REMOVE_RECURSE "${OUTPUT}/man" "${OUTPUT}/completions")
file(MAKE_DIRECTORY "${OUTPUT}/man" "${OUTPUT}/completions")

execute_process(COMMAND "${FLASHFIT}" help --man-dir "${OUTPUT}/man" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "flashfit help --man-dir failed (${rc})")
endif()
find_program(GZIP gzip)
if(GZIP)
  file(GLOB pages "${OUTPUT}/man/*.1")
  foreach(page IN LISTS pages)
    # -n: no name or time stamp in the header, so the bytes are reproducible.
    execute_process(COMMAND "${GZIP}" -9nf "${page}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "gzip ${page} failed (${rc})")
    endif()
  endforeach()
endif()

foreach(pair IN ITEMS "bash=flashfit" "zsh=_flashfit" "fish=flashfit.fish")
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 shell)
  list(GET pair 1 name)
  execute_process(COMMAND "${FLASHFIT}" completion "${shell}"
    OUTPUT_FILE "${OUTPUT}/completions/${name}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "flashfit completion ${shell} failed (${rc})")
  endif()
endforeach()
file(TOUCH "${OUTPUT}/generated.stamp")
