-- SPDX-License-Identifier: MIT
-- Runs the code blocks of README.md and docs/*.md that are complete programs, and compares their
-- output with the doc's where it shows it. A block is one when the line before its fence is
--   <!-- doc-test: runs -->          (a lua or sh block; it must exit with status 0)
-- and the block that shows what it prints has, on the line before its fence,
--   <!-- doc-test: output -->        (compared with the standard output of the last block run)
-- Blocks run from the source root with the build's bt.so on LUA_CPATH; in sh blocks, `P/lib/`
-- (the install prefix of "after make install PREFIX=P") is the build tree's lib/, which has the
-- same lib/lua/5.4/bt.so; bt's programs (bt-log, bt-arena, bt-hello) are found by name.
-- A block that needs what this test has not (bt installed in a LuaRocks tree, a mod's folder) has,
-- before its fence,
--   <!-- doc-test: file PATH -->   (a lua block: the file PATH, relative to a folder)
--   <!-- doc-test: commands -->    (an sh block: run, in order, by the test that has what they need)
-- Here they are only checked for their form; a test of their own writes them out with the second
-- usage and runs them: tests/install/check_luarocks.sh those of writing-a-brain.md,
-- tests/ds_compare/check_try_brain.sh those of porting-a-ds-brain.md.
-- usage: lua5.4 check_blocks.lua <source dir> <build dir> [doc...]   (the docs, relative to the
--                                   source dir: README.md and docs/*.md when none is named)
--        lua5.4 check_blocks.lua --write <doc.md> <dir>   (writes the doc's file blocks into dir,
--                                   each as its PATH, and its commands blocks as dir/run.sh)
local write_dir
local src, build = arg[1], arg[2]
if arg[1] == "--write" then
  write_dir = assert(arg[3], "usage: lua5.4 check_blocks.lua --write <doc.md> <dir>")
  src = arg[2]:match("^(.*)/[^/]*$") or "."
  build = src -- nothing runs here: the prelude below goes unused
end
assert(write_dir or (src and build), "usage: lua5.4 check_blocks.lua <source dir> <build dir>")

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function read(path)
  local f = assert(io.open(path))
  local text = f:read("a")
  f:close()
  return text
end
local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end
local function trim(text) -- trailing blanks of each line and trailing empty lines
  return (text:gsub("[ \t]+\n", "\n"):gsub("[ \t]+$", ""):gsub("\n+$", ""))
end

-- A sanitized build's bt.so needs the sanitizer runtimes preloaded into the stock lua5.4: the
-- blocks then find a lua5.4 first on PATH that preloads them.
local tmp = os.tmpname()
local preload = os.getenv("BT_SANITIZE_PRELOAD")
local prelude = "set -e\n"
if preload and preload ~= "" then
  local which = assert(io.popen("command -v lua5.4"))
  local lua = assert(which:read("l"), "no lua5.4 on PATH")
  which:close()
  assert(os.execute("mkdir " .. quote(tmp .. ".bin")))
  write(tmp .. ".bin/lua5.4", "#!/bin/sh\nLD_PRELOAD=" .. quote(preload) .. " exec " .. quote(lua) .. ' "$@"\n')
  assert(os.execute("chmod +x " .. quote(tmp .. ".bin/lua5.4")))
  prelude = prelude .. "export PATH=" .. quote(tmp .. ".bin") .. ':"$PATH"\n'
end
-- sh blocks run bt's programs by name: bt-log, bt-arena, bt-hello of this build
prelude = prelude .. "export PATH=" .. quote(build .. "/tools") .. ":" .. quote(build .. "/examples/arena") .. ":" ..
  quote(build .. "/examples/hello") .. ':"$PATH"\n'
prelude = prelude .. "export LUA_CPATH=" .. quote(build .. "/lib/lua/5.4/?.so;;") ..
  " LUA_PATH=" .. quote("./?.lua;./lua/?.lua;;") .. "\ncd " .. quote(src) .. "\n"

local files = {}
if write_dir then
  files[1] = arg[2]
elseif arg[3] then
  for i = 3, #arg do files[#files + 1] = src .. "/" .. arg[i] end
else
  files[1] = src .. "/README.md"
  local ls = assert(io.popen("ls " .. quote(src .. "/docs") .. "/*.md"))
  for path in ls:lines() do files[#files + 1] = path end
  ls:close()
end
local write_sh = {} -- the commands blocks, in order (with --write)

local failures, ran, compared, in_readme = {}, 0, 0, 0
for _, path in ipairs(files) do
  local name = path:sub(#src + 2)
  local lines = {}
  for line in (read(path) .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
  local last -- {where, stdout} of the last block run in this file
  local i = 1
  while i <= #lines do
    local what, file = lines[i]:match("^<!%-%- doc%-test: (%a+)%s*([^%s]-)%s*%-%->")
    what = what or lines[i]:match("^<!%-%- doc%-test: (%a+)")
    if what then
      local fence, lang = (lines[i + 1] or ""):match("^%s*(```+)(%w*)%s*$")
      local where = name .. ":" .. (i + 1)
      if not fence then
        failures[#failures + 1] = where .. ": a doc-test marker not followed by a code block"
      else
        local indent = lines[i + 1]:match("^(%s*)") -- a block in a list item is indented
        local body, j = {}, i + 2
        while j <= #lines and not lines[j]:match("^%s*" .. fence .. "%s*$") do
          local line = lines[j]
          body[#body + 1] = line:sub(1, #indent) == indent and line:sub(#indent + 1) or line
          j = j + 1
        end
        local code = table.concat(body, "\n") .. "\n"
        if what == "file" or what == "commands" then
          if what == "file" and ((file or "") == "" or lang ~= "lua") then
            failures[#failures + 1] = where .. ": a file block is a lua block with a path: <!-- doc-test: file PATH -->"
          elseif what == "commands" and (lang ~= "sh" or (file or "") ~= "") then
            failures[#failures + 1] = where .. ": a commands block is an sh block: <!-- doc-test: commands -->"
          elseif write_dir and what == "file" then
            local path = write_dir .. "/" .. file
            assert(os.execute("mkdir -p " .. quote(path:match("^(.*)/[^/]*$") or write_dir)))
            write(path, code)
            print(string.format("%s: wrote %s", where, file))
          elseif write_dir then
            write_sh[#write_sh + 1] = "# " .. where .. "\n" .. code
            print(string.format("%s: added to run.sh", where))
          else
            print(string.format("%s: %s, run by a test of its own", where, what))
          end
        elseif write_dir then -- nothing else runs with --write
          last = nil
        elseif what == "runs" then
          local script
          if lang == "lua" then
            write(tmp .. ".lua", code)
            script = prelude .. "lua5.4 " .. quote(tmp .. ".lua") .. "\n"
          elseif lang == "sh" then
            script = prelude .. code:gsub("P/lib/", (build:gsub("%%", "%%%%")) .. "/lib/")
          else
            failures[#failures + 1] = where .. ": runs a block of '" .. lang .. "', not lua or sh"
          end
          if script then
            write(tmp .. ".sh", script)
            local p = assert(io.popen("sh " .. quote(tmp .. ".sh") .. " 2>" .. quote(tmp .. ".err")))
            local out = p:read("a")
            local ok, _, status = p:close()
            local err = read(tmp .. ".err")
            ran = ran + 1
            if name == "README.md" then in_readme = in_readme + 1 end
            if not ok then
              failures[#failures + 1] = string.format("%s: exit %s; standard error:\n%s", where, status, err)
            end
            last = {where = where, out = out}
            print(string.format("%s: ran (%s), exit %s", where, lang, ok and 0 or status))
          end
        elseif what == "output" then
          if not last then
            failures[#failures + 1] = where .. ": an output block with no block run before it"
          else
            compared = compared + 1
            if trim(last.out) ~= trim(code) then
              failures[#failures + 1] = string.format("%s: %s printed\n%s\ninstead of\n%s", where,
                last.where, last.out, code)
            end
            last = nil
          end
        else
          failures[#failures + 1] = where .. ": unknown doc-test marker '" .. what .. "'"
        end
        i = j
      end
    end
    i = i + 1
  end
end
if write_dir then
  if #write_sh == 0 then
    failures[#failures + 1] = files[1] .. ": no sh block marked <!-- doc-test: commands -->"
  else
    write(write_dir .. "/run.sh", "set -e\n" .. table.concat(write_sh))
  end
  in_readme = 1 -- only this doc was read
end
os.remove(tmp)
os.remove(tmp .. ".lua")
os.remove(tmp .. ".sh")
os.remove(tmp .. ".err")
os.remove(tmp .. ".bin/lua5.4")
os.remove(tmp .. ".bin")
if in_readme == 0 then
  failures[#failures + 1] = "README.md: no block marked <!-- doc-test: runs --> (its Lua example was)"
end
if #failures > 0 then
  io.stderr:write("FAIL: ", table.concat(failures, "\nFAIL: "), "\n")
  os.exit(1)
end
print(string.format("doc blocks: %d ran, %d outputs as the docs show them", ran, compared))
