/* SPDX-License-Identifier: MIT */
/*
 * kinds.c: reads the kinds file (see kinds.h). The file is checked by a Lua function (CHECK
 * below), which also finds the lines of the entries and fields it complains about in the file's
 * text; C then copies the checked values.
 */
#include "kinds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#define INSTRUCTION_LIMIT 10000000

/* check(text, name) -> list of kinds with every field set, or raises "<name>:<line>: message" */
static const char CHECK[] =
    "local text, file, max, objects = ...\n"
    "local lines = {}\n"
    "for l in (text .. '\\n'):gmatch('([^\\n]*)\\n') do lines[#lines + 1] = l end\n"
    "-- the line of field in the entry of kind name, else of the entry, else nil\n"
    "local function line_of(name, field, nth)\n"
    "  if type(name) ~= 'string' then return nil end\n"
    "  local esc = name:gsub('%W', '%%%0')\n"
    "  local start, seen = nil, 0\n"
    "  for i, l in ipairs(lines) do\n"
    "    if l:find('%f[%w_]name%s*=%s*[\"\\']' .. esc .. '[\"\\']') then\n"
    "      seen = seen + 1\n"
    "      if seen == (nth or 1) then start = i break end\n"
    "    end\n"
    "  end\n"
    "  if not start or not field then return start end\n"
    "  -- the entry's fields: from its opening brace to the next entry's name\n"
    "  local first = start\n"
    "  while first > 1 and not lines[first]:find('{') do first = first - 1 end\n"
    "  for i = first, #lines do\n"
    "    if i > start and lines[i]:find('%f[%w_]name%s*=') then break end\n"
    "    if lines[i]:find('%f[%w_]' .. field .. '%s*=') then return i end\n"
    "  end\n"
    "  return start\n"
    "end\n"
    "local function fail(kind, name, field, msg, nth)\n"
    "  local line = line_of(name, field, nth)\n"
    "  local where = file .. (line and (':' .. line) or '')\n"
    "  local who = type(name) == 'string' and (\"kind '\" .. name .. \"'\") or ('kind ' .. kind)\n"
    "  error(where .. ': ' .. who .. (field and (\": field '\" .. field .. \"' \") or ': ') .. msg, 0)\n"
    "end\n"
    "local function show(v)\n"
    "  if type(v) == 'string' then return string.format('%q', v) end\n"
    "  return tostring(v)\n"
    "end\n"
    "local COLOURS = {black = 0, red = 1, green = 2, yellow = 3, blue = 4, magenta = 5, cyan = 6, white = 7}\n"
    "local HOMES = {none = 0, meadow = 1, den = 2, house = 3, post = 4}\n"
    "local FOOD = {grass = 1, house = 4}\n"
    "local ORDER = {'name', 'plural', 'glyph', 'colour', 'brain', 'tags', 'share', 'home', 'eats',\n"
    "  'walk', 'run', 'health', 'damage', 'range', 'cooldown', 'hunger', 'tired', 'radius', 'keys'}\n"
    "-- the blackboard keys the host writes (keys = {night = true, threat = {near = 8}, ...}): their bits\n"
    "local KEYS = {night = 1, hunger = 2, threat = 4}\n"
    "local THREAT = {near = 8, far = 12, tag = 'predator'}\n"
    "local KNOWN = {}\n"
    "for _, f in ipairs(ORDER) do KNOWN[f] = true end\n"
    "-- numbers: {min, min allowed?, max, default}\n"
    "local NUMBERS = {\n"
    "  share = {0, true, 1e6}, walk = {0, false, 100}, run = {0, false, 100},\n"
    "  health = {0, false, 1e6}, damage = {0, true, 1e6}, range = {0, true, 100},\n"
    "  cooldown = {0, true, 1e6}, hunger = {0, false, 1e9}, tired = {0, false, 1e9},\n"
    "  radius = {0, false, 10, 0.5},\n"
    "}\n"
    "local env = {math = math, string = string, table = table, ipairs = ipairs, pairs = pairs,\n"
    "  tostring = tostring, tonumber = tonumber, type = type, select = select, error = error,\n"
    "  assert = assert, pcall = pcall, next = next, print = function() end}\n"
    "local chunk, err = load(text, '@' .. file, 't', env)\n"
    "if not chunk then error(err, 0) end\n"
    "local kinds = chunk()\n"
    "if type(kinds) ~= 'table' or #kinds == 0 then\n"
    "  error(file .. ': expected the file to return a list of kinds ({ {name = ...}, ... }), got ' ..\n"
    "    (type(kinds) == 'table' and 'an empty table' or type(kinds)), 0)\n"
    "end\n"
    "if #kinds > max then error(file .. ': ' .. #kinds .. ' kinds; the arena takes at most ' .. max, 0) end\n"
    "for key in pairs(kinds) do\n"
    "  if math.type(key) ~= 'integer' or key < 1 or key > #kinds then\n"
    "    error(file .. ': the list of kinds has a key ' .. show(key) .. '; entries go in a list, { {name = ...}, ... }', 0)\n"
    "  end\n"
    "end\n"
    "local out, names, glyphs, total = {}, {}, {}, 0\n"
    "for i, k in ipairs(kinds) do\n"
    "  if type(k) ~= 'table' then fail(i, nil, nil, 'must be a table {name = ...}, got ' .. type(k)) end\n"
    "  local name = k.name\n"
    "  for f in pairs(k) do\n"
    "    if not KNOWN[f] then\n"
    "      fail(i, name, tostring(f), 'is not a field of a kind (' .. table.concat(ORDER, ', ') .. ')')\n"
    "    end\n"
    "  end\n"
    "  if type(name) ~= 'string' or not name:find('^[%a_][%w_]*$') or #name > 20 then\n"
    "    fail(i, name, 'name', 'must be a word of letters, digits and _ (at most 20), got ' .. show(name))\n"
    "  end\n"
    "  if names[name] then fail(i, name, 'name', 'is the name of kind ' .. names[name] .. ' too', 2) end\n"
    "  if objects[name] then fail(i, name, 'name', 'is the name of one of the world\\'s objects') end\n"
    "  names[name] = i\n"
    "  local o = {name = name}\n"
    "  o.plural = k.plural == nil and name .. 's' or k.plural\n"
    "  if type(o.plural) ~= 'string' or not o.plural:find('^[%w_ ]+$') or #o.plural > 20 then\n"
    "    fail(i, name, 'plural', 'must be a word (at most 20 characters), got ' .. show(k.plural))\n"
    "  end\n"
    "  local g = k.glyph\n"
    "  if type(g) ~= 'string' or #g ~= 1 or not g:find('^[!-~]$') or g:find('[%.~\"#HDPx]') then\n"
    "    fail(i, name, 'glyph', 'must be one printable character, not one of the map\\'s . ~ \" # H D P x, got ' .. show(g))\n"
    "  end\n"
    "  if glyphs[g] then fail(i, name, 'glyph', 'is the glyph of kind \\'' .. glyphs[g] .. '\\' too') end\n"
    "  glyphs[g] = name\n"
    "  o.glyph = g\n"
    "  local colour = k.colour == nil and 'white' or k.colour\n"
    "  if type(colour) ~= 'string' then fail(i, name, 'colour', 'must be a string such as \"bold bright red\", got ' .. show(colour)) end\n"
    "  local sgr, base, bright = {}, nil, false\n"
    "  for word in colour:gmatch('%S+') do\n"
    "    if word == 'bold' then sgr[#sgr + 1] = '1'\n"
    "    elseif word == 'bright' then bright = true\n"
    "    elseif COLOURS[word] and not base then base = COLOURS[word]\n"
    "    else fail(i, name, 'colour', 'must be [bold] [bright] and one of black, red, green, yellow, blue, magenta, cyan, white; got ' .. show(colour)) end\n"
    "  end\n"
    "  if not base then fail(i, name, 'colour', 'names no colour (black, red, green, yellow, blue, magenta, cyan, white): ' .. show(colour)) end\n"
    "  sgr[#sgr + 1] = tostring((bright and 90 or 30) + base)\n"
    "  o.sgr = table.concat(sgr, ';')\n"
    "  o.brain = k.brain == nil and ('brains/' .. name .. '.lua') or k.brain\n"
    "  if type(o.brain) ~= 'string' or not o.brain:find('^[%w_][%w_/]*%.lua$') or o.brain:find('//') or #o.brain > 90 then\n"
    "    fail(i, name, 'brain', 'must be a file in the data directory such as \"brains/' .. name .. '.lua\", got ' .. show(k.brain))\n"
    "  end\n"
    "  local tags = k.tags == nil and {name} or k.tags\n"
    "  if type(tags) ~= 'table' or #tags > 4 then fail(i, name, 'tags', 'must be a list of at most 4 tags, got ' .. show(k.tags)) end\n"
    "  o.tags = {}\n"
    "  for j, t in pairs(tags) do\n"
    "    if math.type(j) ~= 'integer' or type(t) ~= 'string' or not t:find('^[%w_]+$') or #t > 20 then\n"
    "      fail(i, name, 'tags', 'must be a list of words (at most 20 characters), got ' .. show(t) .. ' at ' .. show(j))\n"
    "    end\n"
    "    o.tags[j] = t\n"
    "  end\n"
    "  o.home = HOMES[k.home == nil and 'none' or k.home]\n"
    "  if not o.home then fail(i, name, 'home', 'must be one of none, meadow, den, house, post, got ' .. show(k.home)) end\n"
    "  o.eats = 0\n"
    "  if k.eats ~= nil then\n"
    "    if type(k.eats) ~= 'table' then fail(i, name, 'eats', 'must be a list of what it eats (grass, house), got ' .. show(k.eats)) end\n"
    "    for _, f in pairs(k.eats) do\n"
    "      if not FOOD[f] then fail(i, name, 'eats', 'must list grass or house, got ' .. show(f)) end\n"
    "      o.eats = o.eats | FOOD[f]\n"
    "    end\n"
    "  end\n"
    "  for _, f in ipairs(ORDER) do\n"
    "    local spec = NUMBERS[f]\n"
    "    if spec then\n"
    "      local v = k[f]\n"
    "      if v == nil then v = spec[4] end\n"
    "      if type(v) ~= 'number' or v ~= v or (spec[2] and v < spec[1]) or (not spec[2] and v <= spec[1]) or v > spec[3] then\n"
    "        fail(i, name, f, 'must be a number ' .. (spec[2] and 'from ' or 'above ') .. spec[1] .. (spec[2] and ' to ' or ', at most ') .. spec[3] ..\n"
    "          (v == nil and ', and is missing' or ', got ' .. show(k[f])))\n"
    "      end\n"
    "      o[f] = v + 0.0\n"
    "    end\n"
    "  end\n"
    "  if o.run < o.walk then fail(i, name, 'run', 'must be at least walk (' .. o.walk .. '), got ' .. o.run) end\n"
    "  o.keys, o.threat_near, o.threat_far, o.threat_tag = 0, THREAT.near, THREAT.far, THREAT.tag\n"
    "  if k.keys ~= nil then\n"
    "    local ks = k.keys\n"
    "    if type(ks) ~= 'table' then fail(i, name, 'keys', 'must be a table of the keys the host writes ({night = true, hunger = true, threat = {near = 8, far = 12}}), got ' .. show(ks)) end\n"
    "    for key, v in pairs(ks) do\n"
    "      if not KEYS[key] then fail(i, name, 'keys', 'names ' .. show(key) .. ', which the host does not write (night, hunger, threat)') end\n"
    "      if v ~= true and not (key == 'threat' and type(v) == 'table') then\n"
    "        fail(i, name, 'keys', 'takes ' .. key .. ' = true' .. (key == 'threat' and ' or a table {near = , far = , tag = }' or '') .. ', got ' .. show(v))\n"
    "      end\n"
    "      o.keys = o.keys | KEYS[key]\n"
    "    end\n"
    "    if type(ks.threat) == 'table' then\n"
    "      local t = ks.threat\n"
    "      for f in pairs(t) do\n"
    "        if THREAT[f] == nil then fail(i, name, 'keys', 'threat: ' .. show(f) .. ' is not one of near, far, tag') end\n"
    "      end\n"
    "      o.threat_near = t.near == nil and THREAT.near or t.near\n"
    "      o.threat_far = t.far == nil and math.max(THREAT.far, o.threat_near) or t.far\n"
    "      o.threat_tag = t.tag == nil and THREAT.tag or t.tag\n"
    "      if type(o.threat_near) ~= 'number' or not (o.threat_near > 0 and o.threat_near <= 100) then\n"
    "        fail(i, name, 'keys', 'threat: near must be a number above 0, at most 100, got ' .. show(t.near))\n"
    "      end\n"
    "      if type(o.threat_far) ~= 'number' or not (o.threat_far >= o.threat_near and o.threat_far <= 100) then\n"
    "        fail(i, name, 'keys', 'threat: far must be a number from near (' .. o.threat_near .. ') to 100, got ' .. show(t.far))\n"
    "      end\n"
    "      if type(o.threat_tag) ~= 'string' or not o.threat_tag:find('^[%w_]+$') or #o.threat_tag > 20 then\n"
    "        fail(i, name, 'keys', 'threat: tag must be a word (at most 20 characters), got ' .. show(t.tag))\n"
    "      end\n"
    "      o.threat_near, o.threat_far = o.threat_near + 0.0, o.threat_far + 0.0\n"
    "    end\n"
    "  end\n"
    "  total = total + o.share\n"
    "  out[i] = o\n"
    "end\n"
    "if total <= 0 then fail(#kinds, kinds[#kinds].name, 'share', 'is 0 in every kind: no creature would live') end\n"
    "return out\n";

static void limit_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  luaL_error(L, "instruction limit exceeded (%d instructions)", INSTRUCTION_LIMIT);
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      char *p = realloc(buf, cap *= 2);
      if (!p) free(buf);
      buf = p;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

static void copy(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src ? src : ""); }

static double number(lua_State *L, const char *field) {
  lua_getfield(L, -1, field);
  double v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static const char *string(lua_State *L, const char *field) {
  lua_getfield(L, -1, field);
  const char *s = lua_tostring(L, -1); /* the kind table keeps it */
  lua_pop(L, 1);
  return s;
}

/* Copies the checked kind at the stack top. */
static void to_kind(lua_State *L, kind_info *k) {
  memset(k, 0, sizeof *k);
  copy(k->name, sizeof k->name, string(L, "name"));
  copy(k->plural, sizeof k->plural, string(L, "plural"));
  k->glyph = string(L, "glyph")[0];
  copy(k->sgr, sizeof k->sgr, string(L, "sgr"));
  copy(k->brain, sizeof k->brain, string(L, "brain"));
  lua_getfield(L, -1, "tags");
  for (int i = 0; i < KIND_TAGS_MAX && lua_rawgeti(L, -1, i + 1) == LUA_TSTRING; i++) {
    copy(k->tags[i], sizeof k->tags[i], lua_tostring(L, -1));
    k->ntags = i + 1;
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  k->home = (home_t)number(L, "home");
  k->eats = (unsigned)number(L, "eats");
  k->share = number(L, "share");
  k->walk = number(L, "walk");
  k->run = number(L, "run");
  k->health = number(L, "health");
  k->damage = number(L, "damage");
  k->range = number(L, "range");
  k->cooldown = number(L, "cooldown");
  k->hunger_rate = 1 / number(L, "hunger");
  k->fatigue_rate = 1 / number(L, "tired");
  k->radius = number(L, "radius");
  k->keys = (unsigned)number(L, "keys");
  k->threat_near = number(L, "threat_near");
  k->threat_far = number(L, "threat_far");
  copy(k->threat_tag, sizeof k->threat_tag, string(L, "threat_tag"));
}

int kinds_load(const char *data_dir, const char *file, kind_info *kinds, int *n, char *err, size_t errsize) {
  char path[4096];
  *n = 0;
  err[0] = 0;
  if (snprintf(path, sizeof path, "%s/%s", data_dir, file) >= (int)sizeof path) {
    snprintf(err, errsize, "%s: the data directory's path is too long", file);
    return -1;
  }
  size_t len = 0;
  char *text = read_file(path, &len);
  if (!text) {
    snprintf(err, errsize, "%s: cannot read it: %s", file, strerror(errno));
    return -1;
  }
  lua_State *L = luaL_newstate();
  if (!L) {
    free(text);
    snprintf(err, errsize, "%s: out of memory", file);
    return -1;
  }
  static const luaL_Reg libs[] = {
      {LUA_GNAME, luaopen_base}, {LUA_STRLIBNAME, luaopen_string},
      {LUA_MATHLIBNAME, luaopen_math}, {LUA_TABLIBNAME, luaopen_table}, {NULL, NULL}};
  for (const luaL_Reg *l = libs; l->func; l++) {
    luaL_requiref(L, l->name, l->func, 1);
    lua_pop(L, 1);
  }
  int rc = -1;
  if (luaL_loadbuffer(L, CHECK, sizeof CHECK - 1, "=kinds check") != LUA_OK) {
    snprintf(err, errsize, "%s: %s", file, lua_tostring(L, -1));
    goto done;
  }
  lua_pushlstring(L, text, len);
  lua_pushstring(L, file);
  lua_pushinteger(L, KINDS_MAX);
  lua_newtable(L);
  static const char *const objects[] = {"grass", "field", "house", "den", "post"};
  for (size_t i = 0; i < sizeof objects / sizeof *objects; i++) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, objects[i]);
  }
  lua_sethook(L, limit_hook, LUA_MASKCOUNT, INSTRUCTION_LIMIT);
  if (lua_pcall(L, 4, 1, 0) != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    snprintf(err, errsize, "%s", msg ? msg : "(error object is not a string)");
    if (msg && strncmp(msg, file, strlen(file)) != 0) snprintf(err, errsize, "%s: %s", file, msg);
    goto done;
  }
  lua_sethook(L, NULL, 0, 0);
  int count = (int)lua_rawlen(L, -1);
  for (int i = 0; i < count; i++) {
    lua_rawgeti(L, -1, i + 1);
    to_kind(L, &kinds[i]);
    lua_pop(L, 1);
  }
  *n = count;
  rc = 0;
done:
  lua_close(L);
  free(text);
  return rc;
}

void kinds_module(const kind_info *k, char *buf, size_t size) {
  snprintf(buf, size, "%s", k->brain);
  size_t len = strlen(buf);
  if (len > 4 && strcmp(buf + len - 4, ".lua") == 0) buf[len - 4] = 0;
  for (char *p = buf; *p; p++)
    if (*p == '/') *p = '.';
}
