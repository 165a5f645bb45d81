-- SPDX-License-Identifier: MIT
-- The specs load bt.test (lua/bt/test.lua, docs/bt-test.md) under its old name: one fake world.
return require "bt.test"
