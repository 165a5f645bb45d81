---@meta bt
-- SPDX-License-Identifier: MIT
-- bt.lua: the lua-language-server (LuaLS) annotations of the module `bt`, for completion and
-- type checks in editors. Never loaded by Lua: bt.so is the module, and this file only describes
-- it. Installed as the addon folder `library/bt.lua` beside `config.json` (docs/lua-api.md says
-- how to point LuaLS at it). tests/spec/annotations_spec.lua checks that every public name of
-- the module has an annotation here and that every name annotated here exists: a name added to
-- the module needs its lines here.
--
-- Layout, which that test reads: `---@class bt.X[: bt.Y]` followed by `local X = {}` is a table
-- of the module (or an object the module gives); `function X:m(...)`, `function X.f(...)` and
-- `---@field` lines are its members; a `---@class` followed by nothing but `---@field` lines
-- describes the shape of a table given to or returned by bt.

---@alias bt.Status "SUCCESS"|"FAILED"|"READY"|"RUNNING"
---@alias bt.Policy "REQUIRE_ONE"|"REQUIRE_ALL"
---@alias bt.Result bt.Status|"ABORTED"
---@alias bt.KeyType "number"|"integer"|"boolean"|"string"|"entity"|"any"
---@alias bt.Abort "none"|"self"|"lower"|"both"
---The keys a node reads or writes: an array of names, or a map of names to the type it takes them for.
---@alias bt.Ports string[]|table<string, bt.KeyType>

---A declaration of blackboard keys, made by `bt.Blackboard{...}` (docs/blackboard.md): give it to
---`bt.BT`, `bt.define` or `bt.SharedBrain`. Its keys are sorted by name; a key's id is its place.
---@class bt.Keys
---@field keys fun(self: bt.Keys): {name: string, type: bt.KeyType, host: boolean}[] the keys, in the order of their ids

---A tree's board (`tree.board`, a leaf function's second argument, a node's `self.board`): each
---key a field; reading an unset key gives nil, writing nil unsets it, a write of another type or of
---an undeclared key raises an error naming the key (docs/blackboard.md).
---@class bt.Board: { [string]: any }

---The trailing options of a leaf constructor: the keys the node reads and writes (docs/blackboard.md).
---@class bt.LeafOptions
---@field reads? bt.Ports
---@field writes? bt.Ports

-- A WatchNode's condition: {key, op, value} (op "==", "~=", "<", "<=", ">", ">="), {key, "is set"},
-- {key, "is not set"}, {key} (set and, for a boolean, true), or {fn, reads = {...}}: fn(inst, board).
---@alias bt.WatchCondition { [1]: string|fun(inst: any, board: bt.Board): any, [2]?: "=="|"~="|"<"|"<="|">"|">="|"is set"|"is not set", [3]?: number|string|boolean|table, reads?: bt.Ports }

---A TaskNode's task: a table (or a Class, giving each entity its own object) with `update`, and
---optionally `start` and `finish`, called as methods with the tree's `inst`.
---@class bt.Task
---@field start? fun(self: table, inst: any)
---@field update fun(self: table, inst: any): (bt.Status|boolean), number?
---@field finish? fun(self: table, inst: any, status: bt.Result)

---Options of `bt.BT`, `definition:instantiate`: `exact` true or false overrides `bt.set_exact`;
---`board` the tree's keys (a `bt.Blackboard`, also given in the options' place).
---@class bt.TreeOptions
---@field exact? boolean
---@field board? bt.Keys

---Options of the saves: `to_id(entity)` (save) and `from_id(id)` (restore) map entities to ids.
---@class bt.SaveOptions
---@field to_id? fun(entity: any): (string|number|nil)
---@field from_id? fun(id: string|number): any

---What `OnSave` and `OnLoad` of a node written in Lua are given.
---@class bt.SaveContext
---@field now number the time of the save, or of the restore
---@field to_id? fun(entity: any): (string|number|nil)
---@field from_id? fun(id: string|number): any

---One line of `tree:snapshot()`.
---@class bt.SnapshotEntry
---@field depth integer
---@field name string
---@field status bt.Status
---@field last bt.Status
---@field dbstring? string what the dump shows in parentheses: only while the node runs, not empty
---@field sleep? number the node's tree sleep time (the dump's last column); nil for none
---@field reads? string[] the blackboard keys the node reads (its ports; a WatchNode's condition is one)
---@field writes? string[] the blackboard keys the node writes

---What `manager:Restore` returns.
---@class bt.RestoreReport
---@field dropped table<string|number, string[]> the paths each brain did not restore, by id
---@field missing (string|number)[] the ids whose entity, or its brain, is gone

---What `manager:GetStats()` returns.
---@class bt.ManagerStats
---@field thinks integer
---@field registered integer
---@field updating integer
---@field waiting integer
---@field hibernating integer
---@field tick integer

---Options of `bt.BrainWrangler`.
---@class bt.WranglerOptions
---@field policy? "ds"|"fixed_rate"

---One entry of `bt.reload.poll()`.
---@class bt.ReloadResult
---@field file string
---@field modules string[]
---@field ok boolean
---@field message? string

---The module: `local bt = require "bt"` (docs/lua-api.md). Lua 5.4 only.
---@class bt
local bt = {}

---@type "SUCCESS"
bt.SUCCESS = "SUCCESS"
---@type "FAILED"
bt.FAILED = "FAILED"
---@type "READY"
bt.READY = "READY"
---@type "RUNNING"
bt.RUNNING = "RUNNING"
---What a TaskNode's `finish` is told when its run was interrupted; never a node's status.
---@type "ABORTED"
bt.ABORTED = "ABORTED"
---@type "REQUIRE_ONE"
bt.REQUIRE_ONE = "REQUIRE_ONE"
---@type "REQUIRE_ALL"
bt.REQUIRE_ALL = "REQUIRE_ALL"
---The version, e.g. "0.2.0".
---@type string
bt.VERSION = ""
---The module and its version as Lua's own `_VERSION` reads, e.g. "bt 0.2.0".
---@type string
bt._VERSION = ""

---The DS-exact mode for trees and nodes made from now on; returns the previous setting.
---@param on boolean
---@return boolean previous
function bt.set_exact(on) end

---Whether node constructors note where they were called, for every node made from now on (the
---lines of `bt.test`'s coverage); returns the previous setting (default false).
---@param on boolean
---@return boolean previous
function bt.set_where(on) end

---Don't Starve's Class: `Class(ctor)` or `Class(base, ctor)`.
---@param base_or_ctor table|fun(self: table, ...)
---@param ctor? fun(self: table, ...)
---@return table class
function bt.Class(base_or_ctor, ctor) end

---Sets the time source: a function returning seconds, a number (the time stands still), or nil
---(the default monotonic clock).
---@param clock (fun(): number)|number|nil
function bt.set_clock(clock) end

---Every tree made from now on draws its random numbers (a Priority's first evaluation time, a
---RandomNode's choice) from a stream of its own seeded with `seed(owner)` (an integer; owner: the
---entity the tree is made for) instead of math.random: trees built per entity, of shared
---definitions, and the subtrees they run. PriorityNode then draws nothing (its lasttime reads nil)
---and BT draws the time from the tree's stream. nil goes back to math.random.
---@param seed (fun(owner: any): integer)|nil
function bt.seed_trees(seed) end

---As math.random, from the random stream of the tree whose scripts make the call (a leaf, a
---behaviour's Visit), seeded by bt.seed_trees; math.random itself for a tree made without it, or
---outside any tree. A pool of Lua states makes it the states' math.random.
---@param m? integer
---@param n? integer
---@return number
function bt.random(m, n) end

---The current time from the clock, in seconds.
---@return number
function bt.GetTime() end

---`handler(message)` receives every contained script error, each time; nil restores the default
---(stderr, where an error is written once in full and its repeats counted).
---@param handler fun(message: string)|nil
function bt.set_error_handler(handler) end

---Bounds each call from bt into Lua to `n` VM instructions; 0 removes the bound.
---@param n integer
function bt.set_instruction_limit(n) end

---The memory bound of a Lua state made by `bt_lua_newstate`; 0 removes it.
---@param bytes integer
function bt.set_memory_limit(bytes) end

---The bytes in use and the bound, or nil for a state bt did not make.
---@return integer? used
---@return integer? limit
function bt.memory() end

---Puts the statuses, the Don't Starve constructors, BT, Class, the brain classes and GetTime into
---`env` (default _G), where it has none; returns `env`.
---@param env? table
---@return table env
function bt.install_globals(env) end

---Compiles the tree under `root` once, for many entities; with `name`, registers it as the
---subtree `bt.SubtreeNode(name)` runs; with a `bt.Blackboard` (in `name`'s place, or after it),
---declares its keys.
---@param root bt.BehaviourNode
---@param name? string|bt.Keys
---@param board? bt.Keys
---@return bt.Definition
function bt.define(root, name, board) end

---Forgets a subtree name; returns the definition it named, or nil.
---@param name string
---@return bt.Definition?
function bt.undefine(name) end

---The definition registered as `name`, or nil.
---@param name string
---@return bt.Definition?
function bt.defined(name) end

---A Brain class whose tree is compiled once (from `root`, or `build()` when the first brain
---starts) and instantiated for each entity; with a `bt.Blackboard`, its tree declares the keys.
---@param root_or_build bt.BehaviourNode|fun(): bt.BehaviourNode
---@param board? bt.Keys
---@return bt.SharedBrainClass
function bt.SharedBrain(root_or_build, board) end

---Declares blackboard keys, each a type name or `{type = ..., host = true}` (the world writes it):
---the types are "number", "integer", "boolean", "string", "entity" (an id) and "any" (a Lua value).
---Keys take ids in the order of their names (docs/blackboard.md "Declaring keys").
---@param keys table<string, bt.KeyType|{type: bt.KeyType, host?: boolean}>
---@return bt.Keys
function bt.Blackboard(keys) end

---The tick length every manager converts sleep times with (default 1/30 s).
---@param seconds number
function bt.set_tick_time(seconds) end

---A Parallel of `ConditionNode(cond, name)` and `node`: the condition is tested on every think.
---@param cond fun(inst: any): any
---@param name string?
---@param node bt.BehaviourNode
---@return bt.ParallelNode
function bt.WhileNode(cond, name, node) end

---A Sequence of `ConditionNode(cond, name)` and `node`: the condition is tested on entry.
---@param cond fun(inst: any): any
---@param name string?
---@param node bt.BehaviourNode
---@return bt.SequenceNode
function bt.IfNode(cond, name, node) end

---A Parallel of `MultiConditionNode(ifcond, whilecond, name)` and `node`.
---@param ifcond fun(inst: any): any
---@param whilecond fun(inst: any): any
---@param name string?
---@param node bt.BehaviourNode
---@return bt.ParallelNode
function bt.IfThenDoWhileNode(ifcond, whilecond, name, node) end

---A state's side of a pool of Lua states (docs/threads.md "A pool of Lua states"): what the
---host's scripts set, and what they call.
---@class bt.pool
---@field place fun(agent: integer, kind: string): table set by the host's scripts: the agent's Brain, not started
---@field event? fun(agent: integer, event: string, data: any, from: integer) set by the host's scripts: hears an event (default: brain:PushEvent(event, data))
---@field remove? fun(agent: integer, brain: table) set by the host's scripts: ends a brain (default: brain:Stop())
---@field save_options? table set by the host's scripts: brain:Save's and brain:Restore's options for a move
local pool = {}
bt.pool = pool

---Sends an agent an event, delivered at the frame's end in any state of the pool; data is plain
---(nil, booleans, numbers, strings, tables of them); from is the sender's agent id (0: the host).
---@param to integer
---@param event string
---@param data? any
---@param from? integer
function pool.send(to, event, data, from) end

---Places an agent at the frame's end: bt.pool.place(agent, kind) in that state (default: the
---least loaded); refused then if it is placed already.
---@param agent integer
---@param kind string
---@param state? integer
function pool.place_later(agent, kind, state) end

---Removes an agent at the frame's end (bt.pool.remove, or brain:Stop()).
---@param agent integer
function pool.remove_later(agent) end

---This state's number in its pool (0 to states() - 1).
---@return integer
function pool.state() end

---The number of states in the pool.
---@return integer
function pool.states() end

---The agent's brain in this state, or nil.
---@param agent integer
---@return table?
function pool.brain(agent) end

---The id of the agent whose brain was made for the entity, or nil.
---@param entity any
---@return integer?
function pool.agent(entity) end

---The ids of this state's agents, in increasing order.
---@return integer[]
function pool.agents() end

---Hot reload of brains and behaviours (docs/reload.md).
---@class bt.reload
local reload = {}
bt.reload = reload

---From now on every module `require` loads from package.path is tracked.
function reload.enable() end

---Whether `enable()` (or `watch()`) was called.
---@return boolean
function reload.enabled() end

---Reloads the module `name` and every tracked module that requires it.
---@param name string
---@return true|nil ok
---@return {modules: string[], brains: integer}|string result_or_message
function reload.module(name) end

---Watches the files of the tracked modules; returns the mode used.
---@param mode? "auto"|"inotify"|"poll"
---@return "inotify"|"poll"
function reload.watch(mode) end

---Reloads the modules whose files changed since the last poll; never blocks.
---@return bt.ReloadResult[]
function reload.poll() end

---The tracked modules: name -> file.
---@return table<string, string>
function reload.modules() end

---The log files of the transition recorders, written and read (docs/lua-api.md "Log files").
---@class bt.log
local log = {}
bt.log = log

---A reader of the log file at `path` (also one still being written), or nil and a message.
---@param path string
---@return bt.LogReader? reader
---@return string? message
function log.open(path) end

---A reader of the log held in the string `s`.
---@param s string
---@return bt.LogReader
function log.read(s) end

---A writer of a new log file at `path`, or nil and a message.
---@param path string
---@param options? {dbstrings?: boolean, thread?: boolean}
---@return bt.LogWriter? writer
---@return string? message
function log.create(path, options) end

---What `bt.log.create` gives: the log file recorders write to (their option `log`).
---@class bt.LogWriter
---@field flush fun(self: bt.LogWriter): (true?, string?)
---@field world fun(self: bt.LogWriter, code: integer, data: string, time?: number): (true?, string?)
---@field stats fun(self: bt.LogWriter): {records: integer, statuses: integer, bytes: integer, lost: integer, shapes: integer, agents: integer}
---@field close fun(self: bt.LogWriter): (true?, string?)

---A record of a log: `type` ("status", "think", "event", "error", "reload", "host", "world",
---"lost", "stop"; with `{all = true}` also "attach", "saved", "describe"), `time`, and for an agent's
---records `agent`, `label`, `think` and `shape`, then what the type has.
---@class bt.LogRecord
---@field type string
---@field time number
---@field agent? integer
---@field label? string
---@field think? integer
---@field shape? string the hash of the agent's tree (16 hexadecimal digits)
---@field node? integer 1-based pre-order index (status, event, error of a node)
---@field path? string
---@field from? string status: bt.Status; reload: a tree's hash
---@field to? string
---@field cause? "deadline"|"start"|"reload"|"event"|"force"
---@field sleep? number
---@field message? string
---@field code? integer
---@field data? string
---@field count? integer
---@field statuses? table[]
---@field nodes? table[]

---What `bt.log.open` and `bt.log.read` give: a reader of a log's records.
---@class bt.LogReader
---@field records fun(self: bt.LogReader, options?: {all?: boolean}): (fun(): bt.LogRecord?)
---@field shape fun(self: bt.LogReader, hash: string): table?
---@field where fun(self: bt.LogReader): ("more"|"ended"|"whole"|"cut"|"failed"), integer
---@field close fun(self: bt.LogReader)

---The sandbox of brain and behaviour files (docs/sandbox.md).
---@class bt.sandbox
local sandbox = {}
bt.sandbox = sandbox

---From now on `require` loads the modules under `prefixes` (default brains, behaviours,
---bt.brains, bt.behaviours) in the sandbox.
---@param prefixes? string[]
function sandbox.install(prefixes) end

---Opts in: gives the sandboxed files each named capability ("io", "debug", "require", ...).
---@param name string
---@param ... string
function sandbox.allow(name, ...) end

---Loads a file as text into the sandbox environment.
---@param path string
---@return function? chunk
---@return string? message
function sandbox.loadfile(path) end

---Loads and runs a file in the sandbox; returns what it returns.
---@param path string
---@return any ...
function sandbox.dofile(path) end

---The sandbox environment, shared by every sandboxed file.
---@return table
function sandbox.env() end

---The environment the module `name` loads in: the sandbox's, or nil.
---@param name string
---@return table?
function sandbox.env_for(name) end

---What bt.Class gives every class and its objects.
---@class bt.Object
---@field _base? table the base class
local Object = {}

---The class's constructor: subclasses call their base's, `Base._ctor(self, ...)`.
---@param ... any
function Object:_ctor(...) end

---Whether the object is of class `class` (or a subclass).
---@param class table
---@return boolean
function Object:is_a(class) end

---Whether this is a class, not an object made from one.
---@return boolean
function Object:is_class() end

---Whether `obj` is an object of this class.
---@param obj any
---@return boolean
function Object:is_instance(obj) end

---A node (docs/lua-api.md "Node objects"); the base class of nodes written in Lua.
---@class bt.BehaviourNode: bt.Object
---@field name string
---@field status bt.Status assignable, to one of the four
---@field lastresult bt.Status the status saved by the last think (read only)
---@field children? bt.BehaviourNode[] live: an edit takes effect at the tree's next think (docs/lua-api.md "Live children lists"); nil for a leaf
---@field parent? bt.BehaviourNode
---@field inst any the entity, for nodes that have one
---@field nextupdatetime? number the deadline set by `Sleep`
---@field OnStop? fun(self: bt.BehaviourNode) called by `Stop`
---@field OnSave? fun(self: bt.BehaviourNode, ctx: bt.SaveContext): table? what a saved game keeps
---@field OnLoad? fun(self: bt.BehaviourNode, data: table?, ctx: bt.SaveContext)
---@field reads? bt.Ports the blackboard keys it reads, checked when the tree is built
---@field writes? bt.Ports the keys it writes
---@field board? bt.Board its tree's board, while it is in a tree that has one (read only)
---@overload fun(name?: string, children?: bt.BehaviourNode[]): bt.BehaviourNode
local BehaviourNode = {}
bt.BehaviourNode = BehaviourNode

---Runs the node for this think.
function BehaviourNode:Visit() end

---Back to READY, and the children.
function BehaviourNode:Reset() end

---After a think: a node that is not RUNNING is reset.
function BehaviourNode:Step() end

---Keeps the status as the last result.
function BehaviourNode:SaveStatus() end

---Calls `OnStop` of the node and of every node below.
function BehaviourNode:Stop() end

---`nextupdatetime = GetTime() + seconds`.
---@param seconds number
function BehaviourNode:Sleep(seconds) end

---Seconds until the node wants to think again, or nil.
---@return number?
function BehaviourNode:GetSleepTime() end

---The least sleep time of the running nodes at and below this one, or nil.
---@return number?
function BehaviourNode:GetTreeSleepTime() end

---The node's text in dumps while it runs.
---@return string
function BehaviourNode:DBString() end

---The node's dump line.
---@return string
function BehaviourNode:GetString() end

---The dump of the node and the nodes below it.
---@param indent? string
---@return string
function BehaviourNode:GetTreeString(indent) end

---`fn(parent)`, `fn(grandparent)`, ... up to the root.
---@param fn fun(node: bt.BehaviourNode)
function BehaviourNode:DoToParents(fn) end

---The base class of decorators: nodes of one child.
---@class bt.DecoratorNode: bt.BehaviourNode
---@overload fun(name?: string, child?: bt.BehaviourNode): bt.DecoratorNode
local DecoratorNode = {}
bt.DecoratorNode = DecoratorNode

---Runs its children in order until one fails.
---@class bt.SequenceNode: bt.BehaviourNode
---@field idx? integer the child it resumes at
---@overload fun(children: bt.BehaviourNode[]): bt.SequenceNode
local SequenceNode = {}
bt.SequenceNode = SequenceNode

---Runs its children in order until one succeeds.
---@class bt.SelectorNode: bt.BehaviourNode
---@field idx? integer
---@overload fun(children: bt.BehaviourNode[]): bt.SelectorNode
local SelectorNode = {}
bt.SelectorNode = SelectorNode

---Re-evaluates its children every `period` seconds (default 1); the first evaluation is
---scattered unless `noscatter` (with bt.seed_trees set, drawn by BT from the tree's stream).
---@class bt.PriorityNode: bt.BehaviourNode
---@field period number
---@field lasttime? number time of the last evaluation (nil before BT with bt.seed_trees set)
---@field idx? integer the selected child
---@overload fun(children: bt.BehaviourNode[], period?: number, noscatter?: boolean): bt.PriorityNode
local PriorityNode = {}
bt.PriorityNode = PriorityNode

---Runs every child each think; fails when one fails.
---@class bt.ParallelNode: bt.BehaviourNode
---@field stoponanycomplete? boolean
---@overload fun(children: bt.BehaviourNode[], name?: string): bt.ParallelNode
local ParallelNode = {}
bt.ParallelNode = ParallelNode

---A Parallel that succeeds as soon as any child is done.
---@class bt.ParallelNodeAny: bt.ParallelNode
---@overload fun(children: bt.BehaviourNode[]): bt.ParallelNodeAny
local ParallelNodeAny = {}
bt.ParallelNodeAny = ParallelNodeAny

---A Sequence repeated `maxreps` times (nil: for ever).
---@class bt.LoopNode: bt.BehaviourNode
---@field maxreps? number
---@field idx? integer
---@field rep integer passes completed
---@overload fun(children: bt.BehaviourNode[], maxreps?: number): bt.LoopNode
local LoopNode = {}
bt.LoopNode = LoopNode

---Tries its children from a random one until one does not fail.
---@class bt.RandomNode: bt.BehaviourNode
---@field idx? integer
---@overload fun(children: bt.BehaviourNode[]): bt.RandomNode
local RandomNode = {}
bt.RandomNode = RandomNode

---SUCCESS if `fn(inst)` is truthy, else FAILED (`fn(inst, board)` in a tree with a board).
---@class bt.ConditionNode: bt.BehaviourNode
---@field fn fun(inst: any, board?: bt.Board): any
---@overload fun(fn: fun(inst: any, board?: bt.Board): any, name?: string, options?: bt.LeafOptions): bt.ConditionNode
local ConditionNode = {}
bt.ConditionNode = ConditionNode

---Tests `start(inst)` until it holds, then `continue(inst)`.
---@class bt.MultiConditionNode: bt.BehaviourNode
---@field start fun(inst: any, board?: bt.Board): any
---@field continue fun(inst: any, board?: bt.Board): any
---@field running boolean whether it has started
---@overload fun(start: fun(inst: any, board?: bt.Board): any, continue: fun(inst: any, board?: bt.Board): any, name?: string, options?: bt.LeafOptions): bt.MultiConditionNode
local MultiConditionNode = {}
bt.MultiConditionNode = MultiConditionNode

---RUNNING until `fn(inst)` is truthy, then SUCCESS.
---@class bt.ConditionWaitNode: bt.BehaviourNode
---@field fn fun(inst: any, board?: bt.Board): any
---@overload fun(fn: fun(inst: any, board?: bt.Board): any, name?: string, options?: bt.LeafOptions): bt.ConditionWaitNode
local ConditionWaitNode = {}
bt.ConditionWaitNode = ConditionWaitNode

---Calls `fn(inst)` (`fn(inst, board)` in a tree with a board), then SUCCESS.
---@class bt.ActionNode: bt.BehaviourNode
---@field action fun(inst: any, board?: bt.Board)
---@overload fun(fn: fun(inst: any, board?: bt.Board), name?: string, options?: bt.LeafOptions): bt.ActionNode
local ActionNode = {}
bt.ActionNode = ActionNode

---RUNNING for `time` seconds (or `time()`), then SUCCESS.
---@class bt.WaitNode: bt.BehaviourNode
---@field wait_time number|fun(): number
---@field wake_time? number when it ends
---@overload fun(time: number|fun(): number): bt.WaitNode
local WaitNode = {}
bt.WaitNode = WaitNode

---Inverts its child's SUCCESS and FAILED.
---@class bt.NotDecorator: bt.DecoratorNode
---@overload fun(child: bt.BehaviourNode): bt.NotDecorator
local NotDecorator = {}
bt.NotDecorator = NotDecorator

---FAILED while its child runs.
---@class bt.FailIfRunningDecorator: bt.DecoratorNode
---@overload fun(child: bt.BehaviourNode): bt.FailIfRunningDecorator
local FailIfRunningDecorator = {}
bt.FailIfRunningDecorator = FailIfRunningDecorator

---FAILED when its child succeeds.
---@class bt.FailIfSuccessDecorator: bt.DecoratorNode
---@overload fun(child: bt.BehaviourNode): bt.FailIfSuccessDecorator
local FailIfSuccessDecorator = {}
bt.FailIfSuccessDecorator = FailIfSuccessDecorator

---Runs its child when `event` fires on `inst` (or through `tree:FireEvent`).
---@class bt.EventNode: bt.BehaviourNode
---@field event string
---@field priority number
---@field triggered boolean whether its event fired for this think
---@field data any the event's data
---@field eventfn? fun(inst: any, data: any) the listener, if it subscribed
---@overload fun(inst: any, event: string, child?: bt.BehaviourNode, priority?: number): bt.EventNode
local EventNode = {}
bt.EventNode = EventNode

---Delivers the event.
---@param data any
function EventNode:OnEvent(data) end

---Removes its listener.
function EventNode:OnStop() end

---Runs its child at most once per `duration` seconds.
---@class bt.LatchNode: bt.BehaviourNode
---@field latchduration number|fun(inst: any): number
---@field lastlatchtime number when it last started
---@field currentlatchduration number the duration drawn then
---@overload fun(inst: any, duration: number|fun(inst: any): number, child: bt.BehaviourNode): bt.LatchNode
local LatchNode = {}
bt.LatchNode = LatchNode

---Runs a task with start, update and finish (the Behaviour Tree Starter Kit's contract).
---@class bt.TaskNode: bt.BehaviourNode
---@field task bt.Task|table
---@overload fun(task: bt.Task|table, name?: string, options?: bt.LeafOptions): bt.TaskNode
local TaskNode = {}
bt.TaskNode = TaskNode

---A Priority without a period: re-evaluates its children at every think.
---@class bt.ActiveSelectorNode: bt.BehaviourNode
---@overload fun(children: bt.BehaviourNode[], name?: string): bt.ActiveSelectorNode
local ActiveSelectorNode = {}
bt.ActiveSelectorNode = ActiveSelectorNode

---A Parallel whose success and failure policies are REQUIRE_ONE or REQUIRE_ALL.
---@class bt.PolicyParallelNode: bt.BehaviourNode
---@field success_policy bt.Policy
---@field failure_policy bt.Policy
---@overload fun(children: bt.BehaviourNode[], success?: bt.Policy, failure?: bt.Policy, name?: string): bt.PolicyParallelNode
local PolicyParallelNode = {}
bt.PolicyParallelNode = PolicyParallelNode

---Runs `child` while every condition holds.
---@class bt.MonitorNode: bt.BehaviourNode
---@overload fun(conditions: bt.BehaviourNode[], child: bt.BehaviourNode, name?: string): bt.MonitorNode
local MonitorNode = {}
bt.MonitorNode = MonitorNode

---Runs its child `times` times (nil: for ever).
---@class bt.RepeatNode: bt.DecoratorNode
---@field times? number
---@field rep integer passes completed
---@overload fun(child: bt.BehaviourNode, times?: number, name?: string): bt.RepeatNode
local RepeatNode = {}
bt.RepeatNode = RepeatNode

---SUCCESS whatever its child ends with.
---@class bt.AlwaysSucceedDecorator: bt.DecoratorNode
---@overload fun(child: bt.BehaviourNode, name?: string): bt.AlwaysSucceedDecorator
local AlwaysSucceedDecorator = {}
bt.AlwaysSucceedDecorator = AlwaysSucceedDecorator

---FAILED whatever its child ends with.
---@class bt.AlwaysFailDecorator: bt.DecoratorNode
---@overload fun(child: bt.BehaviourNode, name?: string): bt.AlwaysFailDecorator
local AlwaysFailDecorator = {}
bt.AlwaysFailDecorator = AlwaysFailDecorator

---FAILED without visiting its child for `seconds` after the child ended.
---@class bt.CooldownDecorator: bt.DecoratorNode
---@field seconds number
---@overload fun(child: bt.BehaviourNode, seconds: number, name?: string): bt.CooldownDecorator
local CooldownDecorator = {}
bt.CooldownDecorator = CooldownDecorator

---FAILED once its child has run `seconds`.
---@class bt.TimeoutDecorator: bt.DecoratorNode
---@field seconds number
---@overload fun(child: bt.BehaviourNode, seconds: number, name?: string): bt.TimeoutDecorator
local TimeoutDecorator = {}
bt.TimeoutDecorator = TimeoutDecorator

---A condition on blackboard keys that watches them: it fails while its condition is false, else
---runs `child` (or succeeds without one); `abort` says what a write does meanwhile
---(docs/blackboard.md "WatchNode and its abort modes").
---@class bt.WatchNode: bt.BehaviourNode
---@field cond bt.WatchCondition
---@field abort bt.Abort
---@overload fun(cond: bt.WatchCondition, name?: string, child?: bt.BehaviourNode, abort?: bt.Abort): bt.WatchNode
local WatchNode = {}
bt.WatchNode = WatchNode

---Runs the subtree registered as `name` with `bt.define(root, name)`.
---@class bt.SubtreeNode: bt.BehaviourNode
---@field subtree string
---@overload fun(name: string): bt.SubtreeNode
local SubtreeNode = {}
bt.SubtreeNode = SubtreeNode

---A tree for one entity: `bt.BT(inst, root[, options])`; its methods live in this table.
---@class bt.BT
---@field inst any what was given to BT
---@field root bt.BehaviourNode
---@field exact boolean whether the tree is DS-exact
---@field board? bt.Board its board: nil for a tree built without a bt.Blackboard
---@overload fun(inst: any, root: bt.BehaviourNode|bt.Definition, options?: bt.TreeOptions|bt.Keys): bt.BT
local BT = {}
bt.BT = BT

---One think: Visit the root, save every status as its last result, Step.
function BT:Update() end

---The next `GetSleepTime` returns 0 until the next `Update`.
function BT:ForceUpdate() end

---Seconds until the tree wants to think again, or nil (hibernate).
---@return number?
function BT:GetSleepTime() end

---Every status back to READY. From inside the tree's own think (a leaf resetting its own tree) it
---does what Don't Starve's does: the tree resets there and then, and the think goes on.
function BT:Reset() end

---Every node's `OnStop`, parents first.
function BT:Stop() end

---Delivers `event` to the tree's EventNodes that did not subscribe through their inst.
---@param event string
---@param data? any
function BT:FireEvent(event, data) end

---Every node in pre-order.
---@return bt.SnapshotEntry[]
function BT:snapshot() end

---The states of the tree's two random streams: the core's generator (Priority, RandomNode; nil
---for a tree that draws nothing) and bt.random's, its scripts' (nil for a tree made without
---bt.seed_trees).
---@return integer? core
---@return integer? scripts
function BT:random_state() end

---Sets them (values random_state gave; nil leaves one as it is): an agent's streams carried to
---another tree.
---@param core integer?
---@param scripts integer?
function BT:set_random_state(core, scripts) end

---The tree with its statuses as a Graphviz DOT graph (docs/debugging.md).
---@return string
function BT:dot() end

---Attaches a recorder (one made from the options), or detaches with nil; returns it.
---@param rec bt.Recorder|bt.RecorderOptions|nil
---@return bt.Recorder?
function BT:record(rec) end

---The recorder attached to the tree, or nil.
---@return bt.Recorder?
function BT:recorder() end

---The tree's statistics (its recorder's, `tree:record{stats = true}`): path -> figures, or with
---`order` an array of them in that order; and its shape's counts.
---@param order? bt.StatsOrder
---@return table<string, bt.NodeStats>|bt.NodeStats[] nodes
---@return bt.ShapeStats shape
function BT:stats(order) end

---Zeroes the tree's own statistics; a run under way counts from now.
function BT:reset_stats() end

---The tree's whole state as a string, for a saved game.
---@param options? bt.SaveOptions
---@return string
function BT:save(options) end

---Restores a string of `save`: the saved paths that found no place, or nil and a message.
---@param s string
---@param options? bt.SaveOptions
---@return string[]? dropped
---@return string? message
function BT:restore(s, options) end

---Options of `bt.Recorder`, `tree:record`, `brain:Record` and `BrainWrangler:Record`.
---@class bt.RecorderOptions
---@field capacity? integer records kept (default 256; 0: none; at most 2097152)
---@field agent? integer the agent id (default: the entity's GUID or id)
---@field label? string the label (default: "<prefab or kind> <id>")
---@field stats? boolean|bt.Stats true: statistics of its own; a bt.Stats: feed that one
---@field log? bt.LogWriter the log file the recorder writes its records to as well

---How `stats` lists its nodes: "tree" (pre-order), "time" (hottest first), "visits".
---@alias bt.StatsOrder "tree"|"time"|"visits"

---One node's statistics (docs/debugging.md "Statistics").
---@class bt.NodeStats
---@field node integer pre-order index from 1
---@field name? string the node's name
---@field path string the node's path
---@field visits integer entered: changed in a think from READY, or from a finished status to another
---@field successes integer changes to SUCCESS in a think
---@field failures integer changes to FAILED in a think
---@field aborts integer runs interrupted: RUNNING to READY
---@field runs integer changes to RUNNING
---@field thinks integer thinks at whose end it was RUNNING
---@field errors integer contained errors of its code
---@field running integer agents in which it runs now
---@field time number seconds RUNNING, runs under way up to their latest record
---@field longest number the longest run, in seconds

---One tree shape's statistics.
---@class bt.ShapeStats
---@field shape string the shape's hash (16 hex digits)
---@field root? string the root's name
---@field agents integer trees counted
---@field thinks integer thinks counted
---@field errors integer contained errors of no one node
---@field nodes? table<string, bt.NodeStats>|bt.NodeStats[] (Stats:shapes) its nodes

---Per-node statistics that recorders feed: `bt.Stats()`.
---@class bt.Stats
local Stats = {}

---A new bt.Stats, fed by nothing yet.
---@return bt.Stats
function bt.Stats() end

---Shape hash -> its statistics, each with its nodes (keyed by path, or in `order`).
---@param order? bt.StatsOrder
---@return table<string, bt.ShapeStats>
function Stats:shapes(order) end

---Zeroes every figure, each tree's own too; runs under way count from now.
function Stats:reset() end

---One record of a recorder (docs/lua-api.md "Recording").
---@class bt.Record
---@field seq integer its number: 1 for the recorder's first
---@field type "status"|"think"|"event"|"error"|"reload"|"host"
---@field think integer the think it was made in or after
---@field time number the tree's clock
---@field node? integer status, event, error: pre-order index from 1
---@field name? string the node's name
---@field path? string the node's path
---@field from? string status: the status before; reload: the old shape's hash
---@field to? string status: the status after; reload: the new shape's hash
---@field sleep? number think: the sleep time it asked for
---@field cause? "start"|"reload"|"deadline"|"event"|"force" think: what made it think
---@field message? string error: the message
---@field code? integer host: its code
---@field data? string host: its bytes

---A transition recorder: `bt.Recorder([options])`.
---@class bt.Recorder
local Recorder = {}

---A new recorder, attached to nothing.
---@param options? bt.RecorderOptions
---@return bt.Recorder
function bt.Recorder(options) end

---The records kept whose seq is at least `first` (default 1), oldest first.
---@param first? integer
---@return bt.Record[]
function Recorder:records(first) end

---Records kept.
---@return integer
function Recorder:count() end

---Records made since it was made or cleared.
---@return integer
function Recorder:total() end

---Forgets every record.
function Recorder:clear() end

---The bt.Stats it feeds, or nil.
---@return bt.Stats?
function Recorder:stats() end

---The agent id and label.
---@return integer id
---@return string label
function Recorder:agent() end

---Sets the agent id and label.
---@param id integer
---@param label? string
function Recorder:set_agent(id, label) end

---A tree compiled once for many entities: what `bt.define` returns.
---@class bt.Definition
local Definition = {}

---A tree of this definition for the entity `inst`.
---@param inst any
---@param options? bt.TreeOptions
---@return bt.BT
function Definition:instantiate(inst, options) end

---The number of nodes.
---@return integer
function Definition:size() end

---The definition as a Graphviz DOT graph, without statuses (docs/debugging.md).
---@return string
function Definition:dot() end

---Don't Starve's Brain class (docs/scheduler.md): subclasses call `bt.Brain._ctor(self, inst)`
---and build `self.bt` in `OnStart`.
---@class bt.Brain: bt.Object
---@field inst any the entity
---@field bt? bt.BT the brain's tree
---@field manager? bt.BrainWrangler the wrangler it uses (bt.BrainManager when unset)
---@field stopped? boolean
---@field paused boolean
---@field recorder? bt.Recorder what `Record` attached
---@field OnStart? fun(self: bt.Brain) builds `self.bt`
---@field OnStop? fun(self: bt.Brain)
---@field DoUpdate? fun(self: bt.Brain) before each think
---@field OnInitializationComplete? fun(self: bt.Brain)
---@overload fun(inst: any): bt.Brain
local Brain = {}
bt.Brain = Brain

---OnStart, registers with its manager, OnInitializationComplete (unless paused).
function Brain:Start() end

---OnStop, the tree's Stop, unregisters (unless paused).
function Brain:Stop() end

---One think: DoUpdate if defined, then the tree's Update.
function Brain:OnUpdate() end

---The tree's sleep time, or 0 without a tree.
---@return number?
function Brain:GetSleepTime() end

---The tree's ForceUpdate and the manager's Wake.
function Brain:ForceUpdate() end

---Unregisters and sets `paused`.
function Brain:Pause() end

---Registers again.
function Brain:Resume() end

---A handler per event name, called with the event's data.
---@param event string
---@param fn fun(data: any)
function Brain:AddEventHandler(event, fn) end

---Calls the handler of `event`.
---@param event string
---@param data? any
function Brain:PushEvent(event, data) end

---The tree's state and the brain's place in its manager, as a string.
---@param options? bt.SaveOptions
---@return string
function Brain:Save(options) end

---Restores a string of `Save`: the paths not restored, or nil and a message.
---@param s string
---@param options? bt.SaveOptions
---@return string[]? dropped
---@return string? message
function Brain:Restore(s, options) end

---Records the brain's tree, whichever it has, into the recorder (one made from the options);
---nil stops. Returns the recorder, kept in `brain.recorder`.
---@param rec bt.Recorder|bt.RecorderOptions|nil
---@return bt.Recorder?
function Brain:Record(rec) end

---The statistics of the brain's tree (`tree:stats`); it records with statistics of its own or its
---wrangler's.
---@param order? bt.StatsOrder
---@return table<string, bt.NodeStats>|bt.NodeStats[] nodes
---@return bt.ShapeStats shape
function Brain:Stats(order) end

---Zeroes the brain's own statistics.
function Brain:ResetStats() end

---A Brain class of `bt.SharedBrain`: one compiled tree for every brain of the class.
---@class bt.SharedBrainClass: bt.Brain
---@overload fun(inst: any): bt.SharedBrainClass
local SharedBrainClass = {}

---The definition the class's brains are made of.
---@return bt.Definition
function SharedBrainClass.GetDefinition() end

---For bt.test's substitution: a new definition of the tree, built anew and given to `edit`, which
---edits it before it is compiled; nil for a class made from a root.
---@param edit fun(root: bt.BehaviourNode): bt.BehaviourNode
---@return bt.Definition?
function SharedBrainClass._redefine(edit) end

---A brain scheduler, Don't Starve's BrainWrangler: `bt.BrainWrangler([options])`.
---@class bt.BrainWrangler: bt.Object
---@overload fun(options?: bt.WranglerOptions): bt.BrainWrangler
local BrainWrangler = {}
bt.BrainWrangler = BrainWrangler

---The default manager.
---@type bt.BrainWrangler
bt.BrainManager = BrainWrangler

---Registers the brain among the updaters.
---@param brain bt.Brain
function BrainWrangler:AddInstance(brain) end

---Takes the brain out of every list.
---@param brain bt.Brain
function BrainWrangler:RemoveInstance(brain) end

---Moves a registered brain to the updaters.
---@param brain bt.Brain
function BrainWrangler:Wake(brain) end

---Moves a registered brain out of every tick until woken.
---@param brain bt.Brain
function BrainWrangler:Hibernate(brain) end

---A registered brain waits that many seconds (in ticks).
---@param brain bt.Brain
---@param seconds number
function BrainWrangler:Sleep(brain, seconds) end

---One tick.
---@param current_tick integer
function BrainWrangler:Update(current_tick) end

---Every brain it thinks records into a recorder of its own (`brain.recorder`), or, with nil, none.
---@param options bt.RecorderOptions|nil
function BrainWrangler:Record(options) end

---The statistics of the brains it records with `Record{stats = true}`, per shape (as
---`bt.Stats:shapes`).
---@param order? bt.StatsOrder
---@return table<string, bt.ShapeStats>
function BrainWrangler:Stats(order) end

---Zeroes the statistics `Record{stats = true}` keeps, each brain's own too.
function BrainWrangler:ResetStats() end

---Removes `inst.brain` if it is registered.
---@param inst any
function BrainWrangler:OnRemoveEntity(inst) end

---"updating", "waiting" and the tick it waits for, "hibernating", or nil.
---@param brain bt.Brain
---@return "updating"|"waiting"|"hibernating"|nil list
---@return integer? wake_tick
function BrainWrangler:GetList(brain) end

---The counts of thinks and of brains per list.
---@return bt.ManagerStats
function BrainWrangler:GetStats() end

---Under the fixed-rate policy, the longest the brain sleeps.
---@param brain bt.Brain
---@param seconds number
function BrainWrangler:SetPeriod(brain, seconds) end

---The state of every brain whose entity `options.to_id` names, as one string.
---@param options bt.SaveOptions
---@return string
function BrainWrangler:Save(options) end

---Restores every saved brain, all or nothing.
---@param s string
---@param options bt.SaveOptions
---@return bt.RestoreReport? report
---@return string? message
function BrainWrangler:Restore(s, options) end

return bt
