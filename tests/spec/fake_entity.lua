-- SPDX-License-Identifier: MIT
-- The specs load bt.test (bt/test.lua, docs/bt-test.md) under its old name: one fake world.
return require "bt.test"
