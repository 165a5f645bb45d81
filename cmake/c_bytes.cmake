# SPDX-License-Identifier: MIT
# bt_c_bytes(PATH BYTES SIZE): the file at PATH as the body of a C array initializer (0x..,
# sixteen to a line) in BYTES, and its size in SIZE. Included by the embed scripts.
function(bt_c_bytes path out_bytes out_size)
  file(READ "${path}" hex HEX)
  string(LENGTH "${hex}" hexlen)
  math(EXPR size "${hexlen} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
  set(${out_bytes} "${bytes}" PARENT_SCOPE)
  set(${out_size} "${size}" PARENT_SCOPE)
endfunction()
