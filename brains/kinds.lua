-- SPDX-License-Identifier: MIT
-- kinds.lua: the creature kinds of bt-arena, one entry each, in the order the world is made
-- (docs/arena.md, "Creature kinds", says what each field means). A new kind is an entry here and
-- its brain, brains/<name>.lua: no C to touch. The first four are Don't Starve's kinds, whose
-- brains poll; the ewe and the fox are written on the blackboard: their `keys` are the facts the
-- world writes into their brains' blackboards as they change (docs/arena.md, "What the host
-- writes").
return {
  {
    name = "sheep", plural = "sheep", glyph = "s", colour = "bright white",
    brain = "brains/sheep.lua",
    tags = { "sheep", "prey" },
    share = 0.5, home = "meadow", eats = { "grass" },
    walk = 2, run = 4.5, health = 60, damage = 5, range = 1.2, cooldown = 2,
    hunger = 110, tired = 90, radius = 0.5,
  },
  {
    name = "wolf", plural = "wolves", glyph = "W", colour = "bold bright red",
    brain = "brains/wolf.lua",
    tags = { "wolf", "predator" },
    share = 0.125, home = "den",
    walk = 3, run = 7.5, health = 100, damage = 25, range = 2, cooldown = 1.5,
    hunger = 150, tired = 80, radius = 0.6,
  },
  {
    name = "villager", glyph = "v", colour = "bright yellow",
    brain = "brains/villager.lua",
    tags = { "villager", "prey" },
    share = 0.25, home = "house", eats = { "house" },
    walk = 2.5, run = 5, health = 80, damage = 8, range = 1.5, cooldown = 1.5,
    hunger = 140, tired = 70, radius = 0.5,
  },
  {
    name = "guard", glyph = "G", colour = "bold bright cyan",
    brain = "brains/guard.lua",
    tags = { "guard" },
    share = 0.125, home = "post", eats = { "house" },
    walk = 3, run = 6.5, health = 150, damage = 30, range = 2.5, cooldown = 1.2,
    hunger = 140, tired = 90, radius = 0.5,
  },
  {
    name = "ewe", glyph = "e", colour = "bright magenta",
    brain = "brains/ewe.lua",
    tags = { "ewe", "prey" },
    share = 0.125, home = "meadow", eats = { "grass" },
    walk = 2, run = 4.5, health = 60, damage = 5, range = 1.2, cooldown = 2,
    hunger = 110, tired = 90, radius = 0.5,
    keys = { hunger = true, threat = { near = 8, far = 12 } },
  },
  {
    name = "fox", plural = "foxes", glyph = "f", colour = "bold yellow",
    brain = "brains/fox.lua",
    tags = { "fox", "predator" },
    share = 0.0625, home = "den",
    walk = 2.5, run = 7, health = 70, damage = 20, range = 1.5, cooldown = 1.5,
    hunger = 150, tired = 80, radius = 0.5,
    keys = { night = true, hunger = true },
  },
}
