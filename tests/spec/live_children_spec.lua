-- SPDX-License-Identifier: MIT
-- A node's children list is live, as in Don't Starve (docs/lua-api.md, "Live children lists"): a
-- script that edits a list, as mods' AddBrainPostInit functions do, changes what the tree thinks
-- from its next think, and every node that stays keeps its state as it was.
--
-- The expected calls, dumps and fields were taken from Don't Starve Together's behaviourtree.lua
-- (game build v638228) by running the same cases (live_children_cases.lua, which takes the node
-- classes as an argument) on it, with the same clock (10, then 0.5 s more before each think): a
-- first choice inserted before the first think; a child inserted above the running one (the
-- Priority's idx stays the number it was); the running child removed (not stopped, its fields
-- kept); a deep child replaced; a child wrapped in a WhileNode; a child replaced through the list
-- given to the constructor (once read through its node); a whole list assigned; a node taken out
-- and put back; an EventNode taken out that still hears its event.
local bt = require "bt"
local H = require "helpers"
local C = require "live_children_cases"

local EXPECTED = {
  {case = "insert_before_first", think = 1, calls = "Flee", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Flee - READY <SUCCESS> ()>0.00",
    "   >Hungry - READY <READY> ()>0.00",
    "   >Wander - READY <READY> ()>0.00",
    "Priority READY SUCCESS idx=nil parent=nil",
    " Flee READY SUCCESS idx=nil parent=nil",
    " Hungry READY READY idx=nil parent=Priority",
    " Wander READY READY idx=nil parent=Priority",
  }},
  {case = "insert_before_first", think = 2, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >Flee - READY <READY> ()>0.00",
    "   >Hungry - READY <READY> ()>0.00",
    "   >Wander - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " Flee READY READY idx=nil parent=nil",
    " Hungry READY READY idx=nil parent=Priority",
    " Wander READY READY idx=nil parent=Priority",
  }},
  {case = "insert_before_first", think = 3, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >Flee - READY <READY> ()>0.00",
    "   >Hungry - READY <READY> ()>0.00",
    "   >Wander - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " Flee READY READY idx=nil parent=nil",
    " Hungry READY READY idx=nil parent=Priority",
    " Wander READY READY idx=nil parent=Priority",
  }},
  {case = "insert_before_first", think = 4, calls = "Flee", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Flee - READY <SUCCESS> ()>0.00",
    "   >Hungry - READY <READY> ()>0.00",
    "   >Wander - READY <READY> ()>0.00",
    "Priority READY SUCCESS idx=nil parent=nil",
    " Flee READY SUCCESS idx=nil parent=nil",
    " Hungry READY READY idx=nil parent=Priority",
    " Wander READY READY idx=nil parent=Priority",
  }},
  {case = "insert_before_first", think = 5, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >Flee - READY <READY> ()>0.00",
    "   >Hungry - READY <READY> ()>0.00",
    "   >Wander - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " Flee READY READY idx=nil parent=nil",
    " Hungry READY READY idx=nil parent=Priority",
    " Wander READY READY idx=nil parent=Priority",
  }},
  {case = "insert_before_first", think = 6, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >Flee - READY <READY> ()>0.00",
    "   >Hungry - READY <READY> ()>0.00",
    "   >Wander - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " Flee READY READY idx=nil parent=nil",
    " Hungry READY READY idx=nil parent=Priority",
    " Wander READY READY idx=nil parent=Priority",
  }},
  {case = "insert_above_running", think = 1, calls = "C1 Run", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 1.00)>0.00",
    "   >C1 - READY <FAILED> ()>0.00",
    "   >Run - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " C1 READY FAILED idx=nil parent=Priority",
    " Run RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "insert_above_running", think = 2, calls = "", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.50)>0.00",
    "   >New - READY <READY> ()>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "   >Run - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " New READY READY idx=nil parent=nil",
    " C1 READY READY idx=nil parent=Priority",
    " Run RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "insert_above_running", think = 3, calls = "", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.00)>0.00",
    "   >New - READY <READY> ()>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "   >Run - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " New READY READY idx=nil parent=nil",
    " C1 READY READY idx=nil parent=Priority",
    " Run RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "insert_above_running", think = 4, calls = "New", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >New - READY <SUCCESS> ()>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "   >Run - READY <READY> ()>0.00",
    "Priority READY SUCCESS idx=nil parent=nil",
    " New READY SUCCESS idx=nil parent=nil",
    " C1 READY READY idx=nil parent=Priority",
    " Run READY READY idx=nil parent=Priority",
  }},
  {case = "insert_above_running", think = 5, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >New - READY <READY> ()>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "   >Run - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " New READY READY idx=nil parent=nil",
    " C1 READY READY idx=nil parent=Priority",
    " Run READY READY idx=nil parent=Priority",
  }},
  {case = "insert_above_running", think = 6, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >New - READY <READY> ()>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "   >Run - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " New READY READY idx=nil parent=nil",
    " C1 READY READY idx=nil parent=Priority",
    " Run READY READY idx=nil parent=Priority",
  }},
  {case = "remove_running", think = 1, calls = "C1 Run", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 1.00)>0.00",
    "   >C1 - READY <FAILED> ()>0.00",
    "   >Run - RUNNING <RUNNING> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " C1 READY FAILED idx=nil parent=Priority",
    " Run RUNNING RUNNING idx=nil parent=Priority",
    " Idle READY READY idx=nil parent=Priority",
    "out: Run RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "remove_running", think = 2, calls = "", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.50)>0.50",
    "   >C1 - READY <READY> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " C1 READY READY idx=nil parent=Priority",
    " Idle READY READY idx=nil parent=Priority",
    "out: Run RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "remove_running", think = 3, calls = "", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.00)>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " C1 READY READY idx=nil parent=Priority",
    " Idle READY READY idx=nil parent=Priority",
    "out: Run RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "remove_running", think = 4, calls = "C1 Idle", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 1.00)>0.00",
    "   >C1 - READY <FAILED> ()>0.00",
    "   >Idle - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " C1 READY FAILED idx=nil parent=Priority",
    " Idle RUNNING RUNNING idx=nil parent=Priority",
    "out: Run RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "remove_running", think = 5, calls = "Idle", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.50)>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "   >Idle - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " C1 READY READY idx=nil parent=Priority",
    " Idle RUNNING RUNNING idx=nil parent=Priority",
    "out: Run RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "remove_running", think = 6, calls = "Idle", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.00)>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "   >Idle - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " C1 READY READY idx=nil parent=Priority",
    " Idle RUNNING RUNNING idx=nil parent=Priority",
    "out: Run RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "replace_deep", think = 1, calls = "Ready Old", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >Ready - READY <SUCCESS> ()>0.00",
    "   >   >Old - READY <SUCCESS> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority READY SUCCESS idx=nil parent=nil",
    " Sequence READY SUCCESS idx=1 parent=Priority",
    "  Ready READY SUCCESS idx=nil parent=Sequence",
    "  Old READY SUCCESS idx=nil parent=Sequence",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "replace_deep", think = 2, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >Sequence - READY <READY> ()>0.00",
    "   >   >Ready - READY <READY> ()>0.00",
    "   >   >Old - READY <READY> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " Sequence READY READY idx=1 parent=Priority",
    "  Ready READY READY idx=nil parent=Sequence",
    "  Old READY READY idx=nil parent=Sequence",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "replace_deep", think = 3, calls = "Ready New", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >Ready - READY <SUCCESS> ()>0.00",
    "   >   >New - READY <SUCCESS> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority READY SUCCESS idx=nil parent=nil",
    " Sequence READY SUCCESS idx=1 parent=Priority",
    "  Ready READY SUCCESS idx=nil parent=Sequence",
    "  New READY SUCCESS idx=nil parent=nil",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "replace_deep", think = 4, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >Sequence - READY <READY> ()>0.00",
    "   >   >Ready - READY <READY> ()>0.00",
    "   >   >New - READY <READY> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " Sequence READY READY idx=1 parent=Priority",
    "  Ready READY READY idx=nil parent=Sequence",
    "  New READY READY idx=nil parent=nil",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "replace_deep", think = 5, calls = "Ready New", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >Sequence - READY <SUCCESS> ()>0.00",
    "   >   >Ready - READY <SUCCESS> ()>0.00",
    "   >   >New - READY <SUCCESS> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority READY SUCCESS idx=nil parent=nil",
    " Sequence READY SUCCESS idx=1 parent=Priority",
    "  Ready READY SUCCESS idx=nil parent=Sequence",
    "  New READY SUCCESS idx=nil parent=nil",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "replace_deep", think = 6, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >Sequence - READY <READY> ()>0.00",
    "   >   >Ready - READY <READY> ()>0.00",
    "   >   >New - READY <READY> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " Sequence READY READY idx=1 parent=Priority",
    "  Ready READY READY idx=nil parent=Sequence",
    "  New READY READY idx=nil parent=nil",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "wrap", think = 1, calls = "Work", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 1.00)>0.00",
    "   >Work - RUNNING <RUNNING> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Work RUNNING RUNNING idx=nil parent=Priority",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "wrap", think = 2, calls = "", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.50)>0.50",
    "   >Parallel - READY <READY> ()>0.00",
    "   >   >Guard - READY <READY> ()>0.00",
    "   >   >Work - RUNNING <RUNNING> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Parallel READY READY idx=nil parent=nil",
    "  Guard READY READY idx=nil parent=Parallel",
    "  Work RUNNING RUNNING idx=nil parent=Parallel",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "wrap", think = 3, calls = "", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.00)>0.00",
    "   >Parallel - READY <READY> ()>0.00",
    "   >   >Guard - READY <READY> ()>0.00",
    "   >   >Work - RUNNING <RUNNING> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Parallel READY READY idx=nil parent=nil",
    "  Guard READY READY idx=nil parent=Parallel",
    "  Work RUNNING RUNNING idx=nil parent=Parallel",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "wrap", think = 4, calls = "guard Idle", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 1.00)>0.00",
    "   >Parallel - READY <FAILED> ()>0.00",
    "   >   >Guard - READY <FAILED> ()>0.00",
    "   >   >Work - READY <RUNNING> ()>0.00",
    "   >Idle - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " Parallel READY FAILED idx=nil parent=nil",
    "  Guard READY FAILED idx=nil parent=Parallel",
    "  Work READY RUNNING idx=nil parent=Parallel",
    " Idle RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "wrap", think = 5, calls = "Idle", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.50)>0.00",
    "   >Parallel - READY <READY> ()>0.00",
    "   >   >Guard - READY <READY> ()>0.00",
    "   >   >Work - READY <READY> ()>0.00",
    "   >Idle - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " Parallel READY READY idx=nil parent=nil",
    "  Guard READY READY idx=nil parent=Parallel",
    "  Work READY READY idx=nil parent=Parallel",
    " Idle RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "wrap", think = 6, calls = "Idle", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.00)>0.00",
    "   >Parallel - READY <READY> ()>0.00",
    "   >   >Guard - READY <READY> ()>0.00",
    "   >   >Work - READY <READY> ()>0.00",
    "   >Idle - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " Parallel READY READY idx=nil parent=nil",
    "  Guard READY READY idx=nil parent=Parallel",
    "  Work READY READY idx=nil parent=Parallel",
    " Idle RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "list_kept", think = 1, calls = "C1 Idle", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.50)>0.00",
    "   >C1 - READY <FAILED> ()>0.00",
    "   >Idle - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " C1 READY FAILED idx=nil parent=Priority",
    " Idle RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "list_kept", think = 2, calls = "Idle", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.00)>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "   >Idle - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " C1 READY READY idx=nil parent=Priority",
    " Idle RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "list_kept", think = 3, calls = "C2", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >C2 - READY <SUCCESS> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority READY SUCCESS idx=nil parent=nil",
    " C2 READY SUCCESS idx=nil parent=nil",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "list_kept", think = 4, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >C2 - READY <READY> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " C2 READY READY idx=nil parent=nil",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "list_kept", think = 5, calls = "C2", seen = {
    "Priority - READY <SUCCESS> ()>0.00",
    "   >C2 - READY <SUCCESS> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority READY SUCCESS idx=nil parent=nil",
    " C2 READY SUCCESS idx=nil parent=nil",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "list_kept", think = 6, calls = "", seen = {
    "Priority - READY <READY> ()>0.00",
    "   >C2 - READY <READY> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority READY READY idx=nil parent=nil",
    " C2 READY READY idx=nil parent=nil",
    " Idle READY READY idx=nil parent=Priority",
  }},
  {case = "list_assigned", think = 1, calls = "C1 Idle", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.50)>0.00",
    "   >C1 - READY <FAILED> ()>0.00",
    "   >Idle - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " C1 READY FAILED idx=nil parent=Priority",
    " Idle RUNNING RUNNING idx=nil parent=Priority",
  }},
  {case = "list_assigned", think = 2, calls = "", seen = {
    "Priority - RUNNING <RUNNING> (execute 2, eval in 0.00)>0.00",
    "   >Other - READY <READY> ()>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=2 parent=nil",
    " Other READY READY idx=nil parent=nil",
    " C1 READY READY idx=nil parent=nil",
  }},
  {case = "list_assigned", think = 3, calls = "Other", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.50)>0.00",
    "   >Other - RUNNING <RUNNING> ()>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Other RUNNING RUNNING idx=nil parent=nil",
    " C1 READY READY idx=nil parent=nil",
  }},
  {case = "list_assigned", think = 4, calls = "Other", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.00)>0.00",
    "   >Other - RUNNING <RUNNING> ()>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Other RUNNING RUNNING idx=nil parent=nil",
    " C1 READY READY idx=nil parent=nil",
  }},
  {case = "list_assigned", think = 5, calls = "Other", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.50)>0.00",
    "   >Other - RUNNING <RUNNING> ()>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Other RUNNING RUNNING idx=nil parent=nil",
    " C1 READY READY idx=nil parent=nil",
  }},
  {case = "list_assigned", think = 6, calls = "Other", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.00)>0.00",
    "   >Other - RUNNING <RUNNING> ()>0.00",
    "   >C1 - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Other RUNNING RUNNING idx=nil parent=nil",
    " C1 READY READY idx=nil parent=nil",
  }},
  {case = "out_and_in", think = 1, calls = "A B", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 1.00)>0.00",
    "   >Sequence - RUNNING <RUNNING> (2)>0.00",
    "   >   >A - READY <SUCCESS> ()>0.00",
    "   >   >B - RUNNING <RUNNING> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Sequence RUNNING RUNNING idx=2 parent=Priority",
    "  A READY SUCCESS idx=nil parent=Sequence",
    "  B RUNNING RUNNING idx=nil parent=Sequence",
    " Idle READY READY idx=nil parent=Priority",
    "out: Sequence RUNNING RUNNING idx=2 parent=Priority",
  }},
  {case = "out_and_in", think = 2, calls = "", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.50)>0.50",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Idle READY READY idx=nil parent=Priority",
    "out: Sequence RUNNING RUNNING idx=2 parent=Priority",
  }},
  {case = "out_and_in", think = 3, calls = "", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.00)>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Idle READY READY idx=nil parent=Priority",
    "out: Sequence RUNNING RUNNING idx=2 parent=Priority",
  }},
  {case = "out_and_in", think = 4, calls = "B", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 1.00)>0.00",
    "   >Sequence - RUNNING <RUNNING> (2)>0.00",
    "   >   >A - READY <READY> ()>0.00",
    "   >   >B - RUNNING <RUNNING> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Sequence RUNNING RUNNING idx=2 parent=Priority",
    "  A READY READY idx=nil parent=Sequence",
    "  B RUNNING RUNNING idx=nil parent=Sequence",
    " Idle READY READY idx=nil parent=Priority",
    "out: Sequence RUNNING RUNNING idx=2 parent=Priority",
  }},
  {case = "out_and_in", think = 5, calls = "B", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.50)>0.00",
    "   >Sequence - RUNNING <RUNNING> (2)>0.00",
    "   >   >A - READY <READY> ()>0.00",
    "   >   >B - RUNNING <RUNNING> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Sequence RUNNING RUNNING idx=2 parent=Priority",
    "  A READY READY idx=nil parent=Sequence",
    "  B RUNNING RUNNING idx=nil parent=Sequence",
    " Idle READY READY idx=nil parent=Priority",
    "out: Sequence RUNNING RUNNING idx=2 parent=Priority",
  }},
  {case = "out_and_in", think = 6, calls = "B", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 0.00)>0.00",
    "   >Sequence - RUNNING <RUNNING> (2)>0.00",
    "   >   >A - READY <READY> ()>0.00",
    "   >   >B - RUNNING <RUNNING> ()>0.00",
    "   >Idle - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Sequence RUNNING RUNNING idx=2 parent=Priority",
    "  A READY READY idx=nil parent=Sequence",
    "  B RUNNING RUNNING idx=nil parent=Sequence",
    " Idle READY READY idx=nil parent=Priority",
    "out: Sequence RUNNING RUNNING idx=2 parent=Priority",
  }},
  {case = "event_out", think = 1, calls = "Wander", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 5.00)>0.00",
    "   >Wander - RUNNING <RUNNING> ()>0.00",
    "   >Event(attacked) - READY <READY> ()>0.00",
    "   >   >Fight - READY <READY> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Wander RUNNING RUNNING idx=nil parent=Priority",
    " Event(attacked) READY READY idx=nil parent=Priority",
    "  Fight READY READY idx=nil parent=Event(attacked)",
    "out: Event(attacked) READY READY idx=nil parent=Priority",
  }},
  {case = "event_out", think = 2, calls = "Wander", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 4.50)>0.00",
    "   >Wander - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Wander RUNNING RUNNING idx=nil parent=Priority",
    "out: Event(attacked) READY READY idx=nil parent=Priority",
  }},
  {case = "event_out", think = 3, calls = "Wander", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 5.00)>0.00",
    "   >Wander - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Wander RUNNING RUNNING idx=nil parent=Priority",
    "out: Event(attacked) READY READY idx=nil parent=Priority",
  }},
  {case = "event_out", think = 4, calls = "Wander", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 4.50)>0.00",
    "   >Wander - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Wander RUNNING RUNNING idx=nil parent=Priority",
    "out: Event(attacked) READY READY idx=nil parent=Priority",
  }},
  {case = "event_out", think = 5, calls = "Wander", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 4.00)>0.00",
    "   >Wander - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Wander RUNNING RUNNING idx=nil parent=Priority",
    "out: Event(attacked) READY READY idx=nil parent=Priority",
  }},
  {case = "event_out", think = 6, calls = "Wander", seen = {
    "Priority - RUNNING <RUNNING> (execute 1, eval in 3.50)>0.00",
    "   >Wander - RUNNING <RUNNING> ()>0.00",
    "Priority RUNNING RUNNING idx=1 parent=nil",
    " Wander RUNNING RUNNING idx=nil parent=Priority",
    "out: Event(attacked) READY READY idx=nil parent=Priority",
  }},
}

local function expected(name)
  local list = {}
  for _, e in ipairs(EXPECTED) do
    if e.case == name then list[e.think] = e end
  end
  return list
end

local function check(name, make)
  local now = 0
  bt.set_clock(function() return now end)
  local got = C.play(bt, name, function(t) now = t end, make, H.entity)
  local want = expected(name)
  assert.equal(C.thinks, #want)
  for k = 1, C.thinks do
    assert.equal(want[k].calls, got[k].calls, name .. ": calls of think " .. k)
    assert.equal(table.concat(want[k].seen, "\n"), table.concat(got[k].seen, "\n"), name .. ": after think " .. k)
  end
end

describe("Live children lists", function()
  after_each(H.restore)

  for _, name in ipairs(C.names) do
    it("do what Don't Starve's do: " .. name, function()
      local errs = H.errors()
      check(name, function(inst, root) return bt.BT(inst, root) end)
      assert.same({}, errs)
    end)
  end

  for _, name in ipairs({"insert_above_running", "remove_running", "list_kept", "event_out"}) do
    it("the same in the DS-exact mode: " .. name, function()
      local errs = H.errors()
      check(name, function(inst, root) return bt.BT(inst, root, {exact = true}) end)
      assert.same({}, errs)
    end)
  end
end)

-- What bt cannot take: the error handler is told, naming the node, and the tree goes on as it was
-- (Don't Starve's scripts would raise in the next think, or recurse for ever).
describe("An edit that makes no tree", function()
  after_each(H.restore)

  local function tree_of(note)
    local root = bt.PriorityNode({
      bt.SequenceNode({bt.ConditionNode(function() note("c"); return true end, "C"),
                       bt.ConditionWaitNode(function() note("w"); return false end, "W")}),
      bt.ActionNode(function() note("idle") end, "Idle"),
    }, 1, true)
    return bt.BT({}, root)
  end

  local cases = {
    {"a child that is no node", function(tree) table.insert(tree.root.children, 42) end,
     "BT: child 3 of node 'Priority' is a number, not a node"},
    {"a cycle", function(tree) table.insert(tree.root.children[1].children, tree.root) end,
     "cycle: node 'Priority' is its own ancestor"},
    {"a node of another tree", function(tree)
       local other = bt.BT({}, bt.SequenceNode({bt.ActionNode(function() end, "Theirs")}))
       tree.root.children[2] = other.root.children[1]
     end, "BT: node 'Theirs' already belongs to a tree"},
    {"a decorator given a second child", function(tree)
       tree.root.children[2] = bt.NotDecorator(bt.ActionNode(function() end, "A"))
       table.insert(tree.root.children[2].children, bt.ActionNode(function() end, "B"))
     end, "NotDecorator needs exactly one child, it has 2"},
  }
  for _, case in ipairs(cases) do
    it("is reported, and the tree thinks on as it was: " .. case[1], function()
      local clock = H.clock(10)
      local errs = H.errors()
      local calls, twin_calls = {}, {}
      local tree = tree_of(function(s) calls[#calls + 1] = s end)
      local twin = tree_of(function(s) twin_calls[#twin_calls + 1] = s end) -- not edited
      tree:Update()
      twin:Update()
      case[2](tree)
      for _, t in ipairs({12, 12.5, 14}) do
        clock.t = t
        tree:Update()
        twin:Update()
        assert.equal(tostring(twin), tostring(tree))
      end
      assert.equal(1, #errs) -- told once, not at every think
      assert.truthy(errs[1]:find(case[3], 1, true), errs[1])
      assert.truthy(errs[1]:find("the edit of the tree's children lists is not taken", 1, true), errs[1])
      assert.equal("c w w w w", table.concat(calls, " "))
      assert.same(twin_calls, calls)
    end)
  end

  it("is refused where it is made in a list of a shared definition, which stays as it is", function()
    H.clock(10)
    local def = bt.define(bt.PriorityNode({bt.ConditionNode(function() return false end, "C")}, 1, true))
    local tree = def:instantiate({})
    tree:Update()
    local ok, err = pcall(table.insert, tree.root.children, bt.ActionNode(function() end, "A"))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("node 'Priority' belongs to a shared definition (bt.define): its children cannot change", 1, true))
    assert.equal(1, #tree.root.children)
    assert.equal("Priority - READY <FAILED> ()>0.00\n   >C - READY <FAILED> ()>0.00\n", tostring(tree))
  end)

  it("does not keep a later edit from being taken", function()
    local clock = H.clock(10)
    local errs = H.errors()
    local calls = {}
    local tree = tree_of(function(s) calls[#calls + 1] = s end)
    tree:Update()
    tree.root.children[3] = "idle"
    clock.t = 12
    tree:Update()
    assert.equal(1, #errs)
    tree.root.children[3] = bt.ActionNode(function() calls[#calls + 1] = "new" end, "New")
    tree.root.children[1] = nil
    table.remove(tree.root.children, 1)
    clock.t = 14
    tree:Update()
    assert.equal(1, #errs)
    assert.equal("c w w idle", table.concat(calls, " "))
    assert.equal("Priority - READY <SUCCESS> ()>0.00\n   >Idle - READY <SUCCESS> ()>0.00\n   >New - READY <READY> ()>0.00\n",
                 tostring(tree))
  end)
end)

describe("A node whose object bt made anew", function()
  after_each(H.restore)

  it("keeps an edit made through a node object nothing else holds, across a collection", function()
    local clock = H.clock(10)
    local calls = {}
    local tree = bt.BT({}, bt.PriorityNode({
      bt.ConditionNode(function() calls[#calls + 1] = "a"; return false end, "A"),
    }, 1, true))
    collectgarbage()
    collectgarbage() -- the root's object is bt's now, held weakly
    tree:Update()
    table.insert(tree.root.children, bt.ActionNode(function() calls[#calls + 1] = "b" end, "B"))
    collectgarbage()
    collectgarbage() -- (before: the root's object went, and the edit with it)
    clock.t = 12
    tree:Update()
    assert.equal("a a b", table.concat(calls, " "))
    assert.equal(2, #tree.root.children)
  end)

  it("keeps its function and parameters when taken out and put back", function()
    local clock = H.clock(10)
    local errs = H.errors()
    local calls = {}
    local tree = bt.BT({}, bt.PriorityNode({
      bt.ConditionNode(function() calls[#calls + 1] = "c"; return false end, "C"),
      bt.PriorityNode({bt.ConditionWaitNode(function() calls[#calls + 1] = "w"; return false end, "W")}, 3, true),
    }, 1, true))
    collectgarbage()
    collectgarbage() -- the node objects the constructors made are gone: bt makes them anew
    tree:Update()
    local c, inner = tree.root.children[1], tree.root.children[2]
    table.remove(tree.root.children, 1)
    table.remove(tree.root.children, 1)
    clock.t = 12
    tree:Update()
    table.insert(tree.root.children, inner)
    table.insert(tree.root.children, 1, c)
    clock.t = 14
    tree:Update()
    assert.same({}, errs)
    assert.equal("c w c w", table.concat(calls, " "))
    assert.equal("Priority - RUNNING <RUNNING> (execute 2, eval in 1.00)>0.00\n" ..
                 "   >C - READY <FAILED> ()>0.00\n" ..
                 "   >Priority - RUNNING <RUNNING> (execute 1, eval in 3.00)>0.00\n" ..
                 "   >   >W - RUNNING <RUNNING> ()>0.00\n", tostring(tree))
  end)
end)

-- Whatever the edits, the tree thinks what its lists say, and nothing escapes: random trees edited
-- between thinks (a node added, taken out, replaced, moved, a list assigned), at random times.
describe("Random edits", function()
  after_each(H.restore)

  local function rng(seed)
    local s = seed
    return function(n)
      s = (s * 48271 + 11) % 2147483647
      return s % n + 1
    end
  end

  local function gen(rnd, depth, made)
    local k = rnd(depth >= 3 and 3 or 8)
    local id = #made + 1
    local node
    if k == 1 then node = bt.ConditionNode(function() return rnd(2) == 1 end, "C" .. id)
    elseif k == 2 then node = bt.ActionNode(function() end, "A" .. id)
    elseif k == 3 then node = bt.ConditionWaitNode(function() return rnd(3) == 1 end, "W" .. id)
    else
      local kids = {}
      for i = 1, rnd(3) do kids[i] = gen(rnd, depth + 1, made) end
      if k == 4 then node = bt.SequenceNode(kids)
      elseif k == 5 then node = bt.SelectorNode(kids)
      elseif k == 6 then node = bt.ParallelNode(kids)
      elseif k == 7 then node = bt.PriorityNode(kids, 0.5, true)
      else node = bt.NotDecorator(kids[1]) end
    end
    made[#made + 1] = node
    return node
  end

  -- the lists from the root down, as the dump shows them
  local function shape(n, depth, out)
    out[#out + 1] = string.rep("   >", depth) .. n.name
    for _, c in ipairs(n.children or {}) do shape(c, depth + 1, out) end
    return out
  end

  local function holds(a, b)
    if a == b then return true end
    for _, c in ipairs(a.children or {}) do if holds(c, b) then return true end end
    return false
  end

  local function edit(rnd, root, made)
    local lists = {}
    local function walk(n)
      if n.children and not n:is_a(bt.NotDecorator) then lists[#lists + 1] = n end
      for _, c in ipairs(n.children or {}) do walk(c) end
    end
    walk(root)
    local node = lists[rnd(#lists)]
    local kids, n = node.children, #node.children
    local op = rnd(5)
    local new = gen(rnd, 2, made)
    if op == 4 then -- a node of the tree moved here, unless that makes a cycle
      local pick = made[rnd(#made)]
      if pick ~= root and not holds(pick, node) then new = pick end
    end
    if op == 1 or n == 0 then table.insert(kids, rnd(n + 1), new)
    elseif op == 2 then if n > 1 then table.remove(kids, rnd(n)) end
    elseif op == 5 then node.children = {new, table.unpack(kids)}
    else kids[rnd(n)] = new end
  end

  it("leave a tree that thinks what its lists say, and report nothing", function()
    local clock = H.clock(10)
    local errs = H.errors()
    for seed = 1, 150 do
      local rnd, made = rng(seed), {}
      local root = bt.PriorityNode({gen(rnd, 1, made), gen(rnd, 1, made)}, 0.5, true)
      local tree = bt.BT({}, root)
      for _ = 1, 25 do
        if rnd(3) == 1 then edit(rnd, root, made) end
        clock.t = clock.t + rnd(4) * 0.25
        tree:Update()
        local dump = {}
        for line in tostring(tree):gmatch("[^\n]+") do dump[#dump + 1] = line:match("^[ >]*[^ ]+") end
        assert.same(shape(root, 0, {}), dump, "seed " .. seed)
      end
    end
    assert.same({}, errs)
  end)
end)
