-- SPDX-License-Identifier: MIT
-- kinds.lua of the arena's probe world (check_arena.sh own_writes): probes only.
return {
  {
    name = "probe", glyph = "p", brain = "brains/probe.lua", tags = { "probe" },
    share = 1, home = "none",
    walk = 2, run = 4, health = 50, damage = 1, range = 1, cooldown = 1,
    hunger = 1000, tired = 1000,
  },
}
