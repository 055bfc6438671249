# Warnings for Cairn's own targets (not for imported ones).
function(cairn_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                           -Wnon-virtual-dtor -Wimplicit-fallthrough
                                           # Designated initializers that leave fields at
                                           # their defaults are how options are written.
                                           -Wno-missing-field-initializers)
endfunction()
