---@meta bt.test
-- SPDX-License-Identifier: MIT
-- bt_test.lua: the lua-language-server (LuaLS) annotations of `bt.test` (lua/bt/test.lua,
-- docs/bt-test.md), the test helper installed beside the module. Never loaded by Lua. Installed
-- beside bt.lua in the addon's `library` folder. tests/spec/annotations_spec.lua checks that every
-- function of bt.test and every method of its world has an annotation here, and the reverse.
--
-- Layout, as in bt.lua: `---@class` followed by `local X = {}` is a table bt.test gives;
-- `function X:m(...)` and `function X.f(...)` are its members.

---A scripted answer: a value (nil too; a table such as an entity is a value), a function called
---with the time and the call's arguments whose results are the answer, or a `timeline`.
---@alias bt.test.Answer any|fun(t: number, ...): ...|bt.test.Timeline

---An answer that changes over time (`bt.test.timeline`).
---@class bt.test.Timeline

---A logged call of the entity interface.
---@class bt.test.Call
---@field t number the world's time of the call
---@field who bt.test.Entity the entity called
---@field name string the method
---@field args table the arguments, packed (`n`)
---@field results table the results, packed (`n`)
---@field scripted? true when a scripted answer gave the results

---What `world:spawn` may set.
---@class bt.test.SpawnOptions
---@field tags? string[] tags besides the kind and its default ones
---@field home? bt.test.Entity|number[] an entity, or `{x, y}`
---@field health? number|false default 100 for creatures, none for objects
---@field walk_speed? number default 2 units a second
---@field run_speed? number default 5
---@field attack_range? number default 2
---@field damage? number default 10
---@field cooldown? number seconds between swings, default 1
---@field miss? boolean every swing misses
---@field hunger? number 0 (full) to 1
---@field hunger_rate? number per second, default 0
---@field tired? boolean
---@field action_times? table<string, number> seconds an action takes (eat 2, work 3, rest 4)
---@field action_range? number default 2
---@field eat_amount? number what a meal takes off hunger, default 0.6
---@field fail_actions? table<string, boolean> actions that end in failure
---@field answers? table<string, bt.test.Answer> scripted answers of its methods (`world:answer`)

---What `bt.test.world` may set.
---@class bt.test.WorldOptions
---@field time? number the starting time, default 0
---@field tick_time? number default 1/30
---@field day? boolean default true
---@field bounds? number[] `{x0, y0, x1, y1}`: movement stays inside

---A fake entity: docs/entity.md's interface, in Lua, every call logged.
---@class bt.test.Entity
---@field id integer
---@field kind string
---@field world bt.test.World
---@field brain? bt.Brain
---@field valid boolean
---@field x number
---@field y number
---@field facing number degrees
---@field tags table<string, boolean>
---@field health? number
---@field hunger number
---@field tired boolean
---@field actions table[] every action started: `{action = , target = , start = }`
---@field said string[] every line said
---@field swings integer
local Entity = {}
function Entity:IsValid() end
function Entity:IsDead() end
---@param tag string
function Entity:HasTag(tag) end
---@return number x, number y
function Entity:GetPosition() end
function Entity:GetDistanceSqTo(x, y) end
function Entity:FacePoint(x, y) end
function Entity:GoToPoint(x, y, run) end
function Entity:WalkInDirection(angle) end
function Entity:RunInDirection(angle) end
function Entity:Stop() end
function Entity:IsMoving() end
function Entity:GetWalkableOffset(x, y, angle, radius) end
function Entity:GetHome() end
function Entity:FindEntity(radius, tags, notags) end
function Entity:FindEntities(radius, tags, notags) end
function Entity:GetTarget() end
function Entity:SetTarget(ent) end
function Entity:CanTarget(ent) end
function Entity:GetAttackRange() end
function Entity:InCooldown() end
function Entity:TryAttack(ent) end
function Entity:GetHealth() end
function Entity:StartAction(action, target) end
function Entity:IsBusy() end
function Entity:GetHunger() end
function Entity:IsTired() end
function Entity:Say(text) end
function Entity:IsDay() end
function Entity:ListenForEvent(event, fn) end
function Entity:RemoveEventCallback(event, fn) end
function Entity:PushEvent(event, data) end

---A scripted world of fake entities.
---@class bt.test.World
---@field time number seconds
---@field tick integer ticks run by `run`
---@field tick_time number
---@field day boolean
---@field no_walkable boolean when set, `GetWalkableOffset` finds nothing
---@field entities bt.test.Entity[]
---@field log bt.test.Call[] every call, in order
---@field events table[] every event pushed: `{t = , who = , event = , data = }`
local World = {}

---Makes an entity of a kind ("sheep", "wolf", "grass", ...) at `x, y`.
---@param kind string
---@param x? number
---@param y? number
---@param opts? bt.test.SpawnOptions
---@return bt.test.Entity
function World:spawn(kind, x, y, opts) end

---From now on the method `name` of `ent` (of every entity, without one) gives `answer` instead of
---the model's; an entity's own answer comes before one for all. A command answered so is not
---carried out. Raises an error naming the argument for an entity of another world or a name
---that is not a method of the interface.
---@overload fun(self: bt.test.World, name: string, answer: bt.test.Answer)
---@param ent bt.test.Entity
---@param name string
---@param answer bt.test.Answer
function World:answer(ent, name, answer) end

---The method answers as the model again (for `ent`, or for all).
---@overload fun(self: bt.test.World, name: string)
---@param ent bt.test.Entity
---@param name string
function World:forget(ent, name) end

---A clock for `bt.set_clock`: the world's time.
---@return fun(): number
function World:clock() end

---@param day boolean
function World:set_day(day) end

---Delivers an event to the entity's listeners, in order, and records it.
---@param ent bt.test.Entity
---@param event string
---@param data? any
function World:push(ent, event, data) end

---Health 0, stops, "death".
---@param ent bt.test.Entity
function World:kill(ent) end

---Takes an entity out of the world (no longer valid), stopping its brain.
---@param ent bt.test.Entity
function World:remove(ent) end

---Ends the entity's running action, with "actiondone" (the model's; `success` nil: as it went).
---@param ent bt.test.Entity
---@param success? boolean
function World:finish_action(ent, success) end

---Ends the entity's running action as failed (what a movement command does).
---@param ent bt.test.Entity
function World:interrupt(ent) end

---The model of `GetWalkableOffset`.
---@return number? x, number? y
function World:walkable(x, y, angle, radius) end

---Advances the time by `dt` seconds, then moves the world on (`update`).
---@param dt number
function World:step(dt) end

---Moves the world on by `dt` seconds without touching the time: movement, hunger, actions that end.
---@param dt number
function World:update(dt) end

---Runs `seconds`, tick by tick (time = tick * tick_time), thinking `wrangler`'s brains after each
---tick's update; `each(tick)` after each tick.
---@param seconds number
---@param wrangler? bt.BrainWrangler
---@param each? fun(tick: integer)
function World:run(seconds, wrangler, each) end

---Makes, places on `wrangler` and starts a brain of class `Brain` for `ent`.
---@param ent bt.test.Entity
---@param Brain table a brain class
---@param wrangler? bt.BrainWrangler
---@return bt.Brain
function World:start_brain(ent, Brain, wrangler) end

---The logged calls of `ent` (all without one) named in `names` (a name or a list; all without).
---@param ent? bt.test.Entity
---@param names? string|string[]
---@return bt.test.Call[]
function World:calls(ent, names) end

---The commands made on `ent` as strings, such as `"GoToPoint(5.00, 0.00, true)"`; with `names`, those calls.
---@param ent? bt.test.Entity
---@param names? string|string[]
---@return string[]
function World:commands(ent, names) end

---Empties the log.
function World:clear_log() end

---@param ent bt.test.Entity
---@param event string
---@return integer
function World:listener_count(ent, event) end

---The events pushed to `ent` with that name.
---@param ent bt.test.Entity
---@param event string
---@return table[]
function World:events_of(ent, event) end

---Every tree built from now on for an entity of this world (one spawned later too) has the nodes
---the rules pick replaced (`bt.test.substitute`); brains started already start again.
---@param rules bt.test.Rule|bt.test.Rule[]
function World:substitute(rules) end

---What replaces a node: `T.succeed()`, `T.fail()`, `T.run(seconds, result)`.
---@class bt.test.Replacement

---A rule of `substitute`: one of `path`, `name` or `class`, and `as`.
---@class bt.test.Rule
---@field path? string the node at this path (as records and error messages give it: `"Priority/Sequence/Graze"`, `"#k"` after a name siblings share)
---@field name? string every node of this name
---@field class? table every node that `is_a` this class (`require "behaviours.wander"`, `bt.ActionNode`)
---@field as "SUCCESS"|"FAILED"|bt.test.Replacement|fun(inst: any, node: bt.BehaviourNode): string what replaces them: a fixed result, a `T.run`, or a function called at each visit with the entity and the replacing node, returning `"SUCCESS"`, `"FAILED"` or `"RUNNING"`

---@class bt.test
local test = {}

---Replaces nodes of a tree, without editing the brain's file. `target` is a tree built for one
---entity (`bt.BT(inst, root)`: edited now, taken from its next think), or a Brain: every tree it
---builds from now on (a start, a restart, a hot reload) has them replaced, and a started one
---starts again. Each replaced node becomes a leaf of the kit's that keeps its name and place. A
---rule that matches no node is an error that names it.
---@param target bt.BT|bt.Brain
---@param rules bt.test.Rule|bt.test.Rule[]
function test.substitute(target, rules) end

---The paths of the kit's leaves in the tree (of a brain: its tree), in pre-order.
---@param target bt.BT|bt.Brain
---@return string[]
function test.substitutes(target) end

---A leaf that succeeds at every visit.
---@return bt.test.Replacement
function test.succeed() end

---A leaf that fails at every visit.
---@return bt.test.Replacement
function test.fail() end

---A leaf that runs `seconds` from the visit that starts it (sleeping until then), then ends with
---`result` (default `"SUCCESS"`).
---@param seconds number
---@param result? "SUCCESS"|"FAILED"
---@return bt.test.Replacement
function test.run(seconds, result) end

---A new world: day, an open plain, time 0.
---@param opts? bt.test.WorldOptions
---@return bt.test.World
function test.world(opts) end

---An answer that changes over time: `v1` from time `t1` on, `v2` from `t2` on, ...; before `t1`
---the model answers. Times ascend; a value may be a function of the time.
---@param t1 number
---@param v1 any
---@param ... any more times and values
---@return bt.test.Timeline
function test.timeline(t1, v1, ...) end

---What `answer` gives at time `t` to a call with the arguments `...`: true and the results, or
---false when it leaves the call to the model (a timeline before its first time).
---@param answer bt.test.Answer
---@param t number
---@return boolean found
---@return any ...
function test.answer_at(answer, t, ...) end

---Replaces `math.random` with the values given, in order (the last repeats); returns the function
---that restores it.
---@param values number[] each in [0, 1)
---@return fun()
function test.stub_random(values) end

---A value as the log's strings show it: numbers with two decimals, entities as `kind#id`.
---@param v any
---@return string
function test.fmt(v) end

---A logged call as a string: `"GoToPoint(5.00, 0.00, true)"`.
---@param call bt.test.Call
---@return string
function test.entry_string(call) end

---Every record of a tree's recorder from the time it was made (`bt.test.trace`), asked after the
---run: nodes by path (names joined by `/`, same-named siblings `#1`, `#2`), times in the tree's
---clock, compared to within a nanosecond ("at t": after every record made at t or before).
---@class bt.test.Trace
---@field recorder bt.Recorder the recorder it takes the records of
---@field last integer transitions a failure shows, default 10
local Trace = {}

---A status change, as `transitions` gives it.
---@class bt.test.Transition
---@field time number
---@field path string
---@field from string
---@field to string

---A think, as `sleeps` gives it.
---@class bt.test.Think
---@field time number
---@field sleep? number the sleep time it asked for; nil: none (it hibernates)

---A trace of a tree, a brain (whichever tree it has), a `bt.Recorder`, or of a world: then a
---table of traces by entity, for each entity with a brain. Tracing a target again gives the same
---trace.
---@param target bt.BT|bt.Brain|bt.Recorder|bt.test.World
---@return bt.test.Trace|table<bt.test.Entity, bt.test.Trace>
function test.trace(target) end

---The records kept.
---@return integer
function Trace:count() end

---Stops taking records; those kept can still be asked.
function Trace:detach() end

---The paths of the deepest nodes running at time `t`, in pre-order.
---@param t number
---@return string[]
function Trace:running_at(t) end

---The node's status at time `t`.
---@param path string
---@param t number
---@return "READY"|"SUCCESS"|"FAILED"|"RUNNING"
function Trace:status_at(path, t) end

---The first time, at `after` or later (default: ever), the node went to `status`; nil if never.
---@param path string
---@param status "READY"|"SUCCESS"|"FAILED"|"RUNNING"
---@param after? number
---@return number?
function Trace:first(path, status, after) end

---Whether the node ever went RUNNING.
---@param path string
---@return boolean
function Trace:ran(path) end

---Whether the node was ever visited (went other than READY).
---@param path string
---@return boolean
function Trace:visited(path) end

---Every status change in order; with `paths`, those of these nodes only.
---@param paths? string|string[]
---@return bt.test.Transition[]
function Trace:transitions(paths) end

---Every think in order, with the sleep time it asked for.
---@return bt.test.Think[]
function Trace:sleeps() end

---The sleep time the last think at or before `t` asked for (nil: none), and that think's time.
---@param t number
---@return number? sleep
---@return number time
function Trace:sleep_at(t) end

---The tree at time `t`, in the dump's layout: `"Priority - RUNNING"`, children indented by `   >`.
---@param t number
---@return string
function Trace:dump_at(t) end

---A failed check's text: `expected`, the tree at `t`, the last transitions up to `t`.
---@param t number
---@param expected string
---@return string
function Trace:failure(t, expected) end

---The node is RUNNING at time `t`; else an error with the failure's text.
---@param t number
---@param path string
function Trace:expect_running(t, path) end

---The node goes to `status` at `from` or later, no later than `seconds` after it; returns when.
---@param path string
---@param status "READY"|"SUCCESS"|"FAILED"|"RUNNING"
---@param from number
---@param seconds number
---@return number
function Trace:expect_within(path, status, from, seconds) end

---These transitions happened in this order (others between them allowed), at `after` or later:
---each a path (it was visited) or `{path, status}`.
---@param list (string|string[])[]
---@param after? number
function Trace:expect_order(list, after) end

---The node never went to `status` (without one: was never visited).
---@param path string
---@param status? "READY"|"SUCCESS"|"FAILED"|"RUNNING"
function Trace:expect_never(path, status) end

---The last think at or before `t` asked for a sleep of `seconds` (nil: none, it hibernates).
---@param t number
---@param seconds number?
function Trace:expect_sleep(t, seconds) end
---One node's coverage (`T.coverage`).
---@class bt.test.CoverageRow
---@field shape string its tree's shape hash, 16 hex digits
---@field node integer its pre-order number, from 1
---@field name string
---@field path string `Priority/Sequence#2/Eat`
---@field where string? where its constructor was called (`bt.set_where(true)`)
---@field covered boolean visited or set running
---@field visited integer times entered
---@field succeeded integer
---@field failed integer
---@field ran integer times it started running
---@field interrupted integer runs interrupted

---The coverage of a run: an array of rows (bt.test.CoverageRow), shape by shape in pre-order.
---@class bt.test.Coverage
local Coverage = {}

---The paths of the nodes never visited.
---@return string[]
function Coverage:missing() end

---The row of that path (of that shape), or nil.
---@param path string
---@param shape? string
---@return bt.test.CoverageRow?
function Coverage:row(path, shape) end

---The report: `"text"` (default), `"lcov"` or `"cobertura"`; `name` is lcov's test name.
---@param format? "text"|"lcov"|"cobertura"
---@param name? string
---@return string
function Coverage:report(format, name) end

---Writes the report to the file; returns the coverage.
---@param file string
---@param format? "text"|"lcov"|"cobertura"
---@param name? string
---@return bt.test.Coverage
function Coverage:write(file, format, name) end

---What a run took of each tree, from the recorder's statistics: a tree, a brain, a
---BrainWrangler, a bt.Stats, a bt.Recorder, or a log file's path; `shape` keeps one shape.
---@param source any
---@param shape? string
---@return bt.test.Coverage
function test.coverage(source, shape) end

---An agent that differs between a recorded session and another (`test.diff`, `check:finish`).
---@class bt.test.DiffRow
---@field agent integer the agent's id (agents are matched by id)
---@field label string its label ("" when none)
---@field state "differs"|"only A"|"only B"
---@field time number the first difference's time (for an agent one side lacks: its first record's)
---@field same integer records found the same before it
---@field path? string the node of the first difference ("" for a record of no node)
---@field a? string side A's record there: `"READY>SUCCESS"`, `"think deadline 0.25"`, `"event"`, `"error: ..."`, `"reload"`, `"key hunger 0.5 -> 0.6"`, `"no record"`
---@field b? string side B's record
---@field path_a? string side A's node when it names another than `path`
---@field path_b? string
---@field time_a? number side A's record's time (nil: no record)
---@field time_b? number

---@class bt.test.DiffSummary
---@field agents integer agents on either side
---@field same integer agents whose records were all the same
---@field differ integer agents that differ
---@field only_a integer agents only side A has
---@field only_b integer agents only side B has
---@field records integer records found the same

---A live run compared with a recorded session as its records come (`test.check`).
---@class bt.test.Check
local Check = {}

---Compares the records of a tree (its recorder, or one of capacity 0 made for it), a brain (likewise,
---whichever tree it has) or a bt.Recorder with the log's, from now on; returns the recorder.
---Agents are matched by the recorder's agent id (`rec:set_agent`), as the log names them.
---@param target any a tree, a brain or a bt.Recorder
---@return userdata recorder
function Check:watch(target) end

---Reads the log to its end and ends the comparison: rows, summary and the report's text, as `test.diff`.
---@return bt.test.DiffRow[] rows
---@return bt.test.DiffSummary summary
---@return string report
function Check:finish() end

---`finish`, and raises an error with the report when the run and the log differ; returns the summary.
---@return bt.test.DiffSummary
function Check:expect_same() end

---Compares two log files of one session, agent by agent (by id), record by record, nodes by path
---(docs/bt-test.md "Comparing with a recorded session"): an entry per agent that differs or is in one
---log only, a summary, and the report bt-log diff prints.
---@param a string the path of log A
---@param b string the path of log B
---@return bt.test.DiffRow[] rows
---@return bt.test.DiffSummary summary
---@return string report
function test.diff(a, b) end

---A check of a live run against the log at `path` (its side "recorded"; the run is "now").
---@param path string
---@return bt.test.Check
function test.check(path) end

return test
