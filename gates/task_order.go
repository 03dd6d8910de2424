package gates

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Task order: what a plan's depends say about the order of its tasks,
// shared by swarm/plan-lint (the whole plan, advisory) and swarm/evidence
// (the completed tasks it checks). Three problems, in the plugin's terms
// (src/parallel/dependency-graph.ts, the Task DAG check of
// src/services/diagnose-service.ts):
//
//   - a completed task whose dependency is not completed: the plugin makes
//     a task dependency-ready only when all its depends are done, and a
//     closed task (swarm close) counts as done, as in its delegation gate;
//   - a missing dependency: an id that names no task of the plan (the
//     plugin's "depends on missing", the epic gate's phantom dep);
//   - a circular dependency: tasks that depend on one another in a loop,
//     a task that depends on itself included.
type dependsKind int

const (
	dependsOpen    dependsKind = iota // a completed task's dependency is not done
	dependsMissing                    // a dependency names no task
	dependsCycle                      // a circular dependency
)

// dependsProblem is one task-order problem of a plan.
type dependsProblem struct {
	kind      dependsKind
	task      *swarm.Task // the task it is reported on
	phase     int         // the id of the task's phase
	dep       string      // the dependency (open, missing)
	depStatus string      // its status (open)
	depPhase  int         // the id of its phase (open; missing: the phase its id names, or 0)
	cycle     []string    // the loop in depends order, first id repeated at the end (cycle)
	loopSize  int         // how many tasks depend on one another in all (cycle)
	samePhase bool        // the dependency (every task of the loop) is in the task's phase
}

// message says the problem in a sentence naming the task, the dependency
// and its status.
func (p dependsProblem) message() string {
	t := depID(p.task.ID)
	switch p.kind {
	case dependsOpen:
		where := ""
		if !p.samePhase {
			where = fmt.Sprintf(" of phase %d", p.depPhase)
		}
		return fmt.Sprintf("task %s is completed but depends on %s%s, which is %s: the plugin starts a task only when all its depends are completed; complete %s first, or remove it from %s's depends if %s does not need it",
			t, depID(p.dep), where, p.depStatus, depID(p.dep), t, t)
	case dependsMissing:
		hint := "no task of the plan has that id"
		if p.dep == "" {
			hint = "an empty id names no task"
		} else if isDigits(p.dep) && p.depPhase > 0 {
			hint = fmt.Sprintf("that is phase %d's id; depends lists task ids (%s.1, ...)", p.depPhase, p.dep)
		}
		return fmt.Sprintf("task %s depends on missing %s: %s; fix the id or remove it from the depends", t, depID(p.dep), hint)
	}
	ids := make([]string, len(p.cycle))
	for i, id := range p.cycle {
		ids[i] = depID(id)
	}
	if len(ids) > maxLoopShown+2 { // a long loop: its start, and the end that closes it
		ids = append(ids[:maxLoopShown:maxLoopShown], fmt.Sprintf("… %d more …", len(ids)-maxLoopShown-2), ids[len(ids)-2], ids[len(ids)-1])
	}
	loop := strings.Join(ids, " → ")
	if len(p.cycle) == 2 {
		return fmt.Sprintf("task %s depends on itself (circular dependency %s): remove %s from its depends", t, loop, t)
	}
	more := ""
	if p.loopSize > len(p.cycle)-1 {
		more = fmt.Sprintf(" (%d tasks in all depend on one another in a loop)", p.loopSize)
	}
	return fmt.Sprintf("circular dependency %s%s (each depends on the next): none of them can start before the others are completed; remove one of these depends", loop, more)
}

// key identifies the problem without line numbers or statuses: the same
// problem on the merge base has the same key (the dependency's status may
// change and the task stays out of order).
func (p dependsProblem) key(rule string) string {
	if p.kind == dependsCycle {
		return fkey(rule, p.cycle...)
	}
	return fkey(rule, p.task.ID, p.dep)
}

// maxLoopShown is how many tasks of a circular dependency a message names
// before it cuts the loop short.
const maxLoopShown = 10

// depID writes a task id for a message: as it is when it has the plugin's
// form, else quoted and cut to 60 characters.
func depID(id string) string {
	if swarm.ValidTaskID(id) {
		return id
	}
	return strconv.Quote(clipN(id, 60))
}

// taskNode is one task of the plan graph: the first task with its id.
type taskNode struct {
	task  *swarm.Task
	phase int
	deps  []int // the nodes it depends on, once each, in depends order
}

// taskGraph is a plan's tasks with their depends.
type taskGraph struct {
	nodes []taskNode
	index map[string]int // task id -> node
	phase map[int]bool   // phase ids
}

func newTaskGraph(plan *swarm.Plan) *taskGraph {
	g := &taskGraph{index: map[string]int{}, phase: map[int]bool{}}
	for i := range plan.Phases {
		ph := &plan.Phases[i]
		g.phase[ph.ID] = true
		for j := range ph.Tasks {
			t := &ph.Tasks[j]
			if _, dup := g.index[t.ID]; dup {
				continue // a duplicate id: the plugin keeps the first too
			}
			g.index[t.ID] = len(g.nodes)
			g.nodes = append(g.nodes, taskNode{task: t, phase: ph.ID})
		}
	}
	// mark[j] == i+1: node i already depends on j (a depends list may
	// repeat ids a million times, so no linear search).
	mark := make([]int, len(g.nodes))
	for i := range g.nodes {
		n := &g.nodes[i]
		for _, d := range n.task.Depends {
			if j, ok := g.index[d]; ok && mark[j] != i+1 {
				mark[j] = i + 1
				n.deps = append(n.deps, j)
			}
		}
	}
	return g
}

// maxDependsProblems bounds the task-order problems reported one by one:
// a plan's depends may name up to a million ids, each a problem, and a
// finding apiece took gigabytes; a reviewer needs the first few.
const maxDependsProblems = 200

// dependsOverflow sums up the problems past maxDependsProblems.
type dependsOverflow struct {
	n, samePhase int
	// keys digests the omitted problems' keys, so that the same overflow
	// on the merge base is the same finding, and any other is new.
	keys hash.Hash
}

func (o *dependsOverflow) add(p dependsProblem) {
	if o.keys == nil {
		o.keys = sha256.New()
	}
	o.n++
	if p.samePhase {
		o.samePhase++
	}
	o.keys.Write([]byte(p.key("")))
	o.keys.Write([]byte{0xff})
}

// finding is the one finding of rule for the omitted problems (none when
// nothing was omitted), of severity sev.
func (o *dependsOverflow) finding(rule string, sev Severity) []Finding {
	if o.n == 0 {
		return nil
	}
	return []Finding{{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: rule, Severity: sev, Key: fkey(rule, hex.EncodeToString(o.keys.Sum(nil))),
		Message: fmt.Sprintf("%s more not shown (over the limit of %d a plan; %d of them within a task's own phase): fix the depends of the plan's tasks, then see the rest", plural(o.n, "task-order problem", "task-order problems"), maxDependsProblems, o.samePhase)}}
}

// dependsProblems returns the task-order problems of the tasks judge
// accepts, in plan order: for each judged task its open and missing
// dependencies, and each circular dependency one judged task is part of,
// once, reported on the first judged task of it. judge is called with the
// task and the id of its phase. Past maxDependsProblems, problems are only
// counted, in the overflow.
func dependsProblems(plan *swarm.Plan, judge func(t *swarm.Task, phase int) bool) ([]dependsProblem, *dependsOverflow) {
	g := newTaskGraph(plan)
	var out []dependsProblem
	more := &dependsOverflow{}
	add := func(p dependsProblem) {
		if len(out) < maxDependsProblems {
			out = append(out, p)
		} else {
			more.add(p)
		}
	}
	for i := range plan.Phases {
		ph := &plan.Phases[i]
		for j := range ph.Tasks {
			t := &ph.Tasks[j]
			if !judge(t, ph.ID) {
				continue
			}
			seen := map[string]bool{}
			for _, d := range t.Depends {
				if seen[d] || d == t.ID {
					continue // a self-dependency is a cycle
				}
				seen[d] = true
				k, ok := g.index[d]
				if !ok {
					dp := idPhase(g, d)
					add(dependsProblem{kind: dependsMissing, task: t, phase: ph.ID, dep: d, depPhase: dp, samePhase: dp != 0 && dp == ph.ID})
					continue
				}
				dn := g.nodes[k]
				if t.Status == "completed" && dn.task.Status != "completed" && dn.task.Status != "closed" {
					add(dependsProblem{kind: dependsOpen, task: t, phase: ph.ID, dep: d, depStatus: dn.task.Status, depPhase: dn.phase, samePhase: dn.phase == ph.ID})
				}
			}
		}
	}
	for _, loop := range g.loops() {
		at := -1 // the first judged task of the loop, in plan order
		for _, n := range loop.members {
			if nd := g.nodes[n]; judge(nd.task, nd.phase) {
				at = n
				break
			}
		}
		if at < 0 {
			continue
		}
		same := true
		for _, n := range loop.members {
			same = same && g.nodes[n].phase == g.nodes[at].phase
		}
		ids := make([]string, len(loop.path))
		for i, n := range loop.path {
			ids[i] = g.nodes[n].task.ID
		}
		add(dependsProblem{kind: dependsCycle, task: g.nodes[at].task, phase: g.nodes[at].phase, cycle: ids, loopSize: len(loop.members), samePhase: same})
	}
	return out, more
}

// idPhase is the phase a task id names by its first part ("1.7" -> 1)
// when the plan has that phase, else 0.
func idPhase(g *taskGraph, id string) int {
	head, _, _ := strings.Cut(id, ".")
	n, err := strconv.Atoi(head)
	if err != nil || !isDigits(head) || !g.phase[n] {
		return 0
	}
	return n
}

// taskLoop is a set of tasks that depend on one another in a loop, and one
// loop through them: the shortest from its lowest task id back to it.
type taskLoop struct {
	members []int // the nodes, ascending
	path    []int // the loop in depends order, first node repeated at the end
}

// loops returns the graph's circular dependencies: its strongly connected
// components of more than one task, or of one that depends on itself,
// found without recursion (Tarjan's algorithm with an explicit stack), so
// long chains of depends cannot overflow anything. Linear in tasks and
// depends.
func (g *taskGraph) loops() []taskLoop {
	n := len(g.nodes)
	index := make([]int, n) // 0: not visited yet, else the visit order + 1
	low := make([]int, n)
	onStack := make([]bool, n)
	var stack []int
	type frame struct{ v, next int }
	var out []taskLoop
	visit := 1
	for s := 0; s < n; s++ {
		if index[s] != 0 {
			continue
		}
		calls := []frame{{v: s}}
		index[s], low[s] = visit, visit
		visit++
		stack = append(stack, s)
		onStack[s] = true
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			if deps := g.nodes[f.v].deps; f.next < len(deps) {
				w := deps[f.next]
				f.next++
				switch {
				case index[w] == 0:
					index[w], low[w] = visit, visit
					visit++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{v: w})
				case onStack[w]:
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			var comp []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 || slices.Contains(g.nodes[v].deps, v) {
				slices.Sort(comp)
				out = append(out, taskLoop{members: comp, path: g.shortestLoop(comp)})
			}
		}
	}
	slices.SortFunc(out, func(a, b taskLoop) int { return a.members[0] - b.members[0] })
	return out
}

// shortestLoop is the shortest loop of depends, within comp (a strongly
// connected component), from its lowest task id back to it: a breadth-first
// search, linear in comp's tasks and depends.
func (g *taskGraph) shortestLoop(comp []int) []int {
	start := comp[0]
	for _, c := range comp[1:] {
		if compareTaskIDs(g.nodes[c].task.ID, g.nodes[start].task.ID) < 0 {
			start = c
		}
	}
	in := map[int]bool{}
	for _, c := range comp {
		in[c] = true
	}
	parent := map[int]int{start: -1}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range g.nodes[v].deps {
			if w == start {
				var path []int
				for x := v; x != -1; x = parent[x] {
					path = append(path, x)
				}
				slices.Reverse(path)
				return append(path, start)
			}
			if _, seen := parent[w]; seen || !in[w] {
				continue
			}
			parent[w] = v
			queue = append(queue, w)
		}
	}
	return []int{start, start} // not reached: comp is a loop
}
