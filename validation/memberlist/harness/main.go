// Command harness runs N real hashicorp/memberlist nodes in one process on 127.0.0.1, injects
// the faults of one fdsim scenario through a wrapping Transport (UDP loss, a slow node, a held
// node, a crash by Shutdown()) and prints, per trial, one JSON line with the metric names fdsim's
// SWIM model writes (docs/metrics.md, scope `swim`).
//
// Build offline in GOPATH mode (nothing vendored, nothing downloaded):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=/tmp/gocache go build -o harness .
//
// Measurement: the nodes join node 0, the harness waits until every node sees all N alive and
// then `-settle_s`; the measurement window starts there (t0) and lasts `-window_s`. Fault times
// are relative to t0.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
)

type options struct {
	n           int
	trials      int
	profile     string
	seed        int64
	settle      float64
	window      float64
	crashAt     float64
	crashNode   int
	loss        float64
	slowNode    int
	slowMs      float64
	holdNode    int
	holdAt      float64
	holdS       float64
	noLifeguard bool
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 8, "members")
	flag.IntVar(&o.trials, "trials", 1, "trials (each a fresh cluster)")
	flag.StringVar(&o.profile, "profile", "lan", "lan (DefaultLANConfig) or scaled (every timer / 5)")
	flag.Int64Var(&o.seed, "seed", 1, "seed of the harness's own draws (loss)")
	flag.Float64Var(&o.settle, "settle_s", 3, "wait after every node sees N members")
	flag.Float64Var(&o.window, "window_s", 30, "measurement window")
	flag.Float64Var(&o.crashAt, "crash_at_s", -1, "Shutdown() of crash_node at this time (< 0: none)")
	flag.IntVar(&o.crashNode, "crash_node", 1, "node to crash")
	flag.Float64Var(&o.loss, "loss", 0, "loss probability of every UDP packet")
	flag.IntVar(&o.slowNode, "slow_node", -1, "node whose packets are delayed (< 0: none)")
	flag.Float64Var(&o.slowMs, "slow_ms", 0, "extra one-way delay of the slow node's packets, from t0")
	flag.IntVar(&o.holdNode, "hold_node", -1, "node whose packets are held (< 0: none)")
	flag.Float64Var(&o.holdAt, "hold_at_s", 0, "hold start")
	flag.Float64Var(&o.holdS, "hold_s", 0, "hold length")
	flag.BoolVar(&o.noLifeguard, "no_lifeguard", false, "not supported by memberlist (always on); rejected")
	flag.Parse()
	if o.noLifeguard {
		fmt.Fprintln(os.Stderr, "harness: memberlist cannot switch Lifeguard off")
		os.Exit(2)
	}
	if o.n < 2 || o.trials < 1 || (o.profile != "lan" && o.profile != "scaled") {
		fmt.Fprintln(os.Stderr, "harness: need -n >= 2, -trials >= 1, -profile lan|scaled")
		os.Exit(2)
	}
	enc := json.NewEncoder(os.Stdout)
	for t := 0; t < o.trials; t++ {
		m, err := runTrial(o, o.seed*1000003+int64(t))
		if err != nil {
			fmt.Fprintf(os.Stderr, "harness: trial %d: %v\n", t, err)
			os.Exit(1)
		}
		if err := enc.Encode(map[string]interface{}{"trial": t, "metrics": m}); err != nil {
			os.Exit(1)
		}
	}
}

func configFor(o options, i int) *memberlist.Config {
	c := memberlist.DefaultLANConfig()
	c.Name = fmt.Sprintf("node-%d", i)
	c.EnableCompression = false // packets stay classifiable; protocol unchanged
	if o.profile == "scaled" {
		c.ProbeInterval = 200 * time.Millisecond
		c.ProbeTimeout = 100 * time.Millisecond
		c.GossipInterval = 40 * time.Millisecond
		c.PushPullInterval = 6 * time.Second
		c.GossipToTheDeadTime = 6 * time.Second
		c.TCPTimeout = 2 * time.Second
	}
	return c
}

func runTrial(o options, seed int64) (map[string]interface{}, error) {
	w := newWorld(o.n, seed, o.loss)
	nodes := make([]*memberlist.Memberlist, o.n)
	phase := rand.New(rand.NewSource(seed + 7))
	for i := 0; i < o.n; i++ {
		// Each node's probe and gossip tickers start at its Create(): a random gap between the
		// creations gives the members independent ticker phases, as members started at
		// different times have (and as fdsim assumes).
		interval := configFor(o, i).ProbeInterval
		time.Sleep(time.Duration(phase.Int63n(int64(interval))))
		// Port 0: the kernel picks the TCP port and UDP must bind the same one, which can
		// collide; memberlist itself retries this 10 times.
		var nt *memberlist.NetTransport
		var err error
		for try := 0; try < 10; try++ {
			nt, err = memberlist.NewNetTransport(&memberlist.NetTransportConfig{
				BindAddrs: []string{"127.0.0.1"}, BindPort: 0,
				Logger: logFor(w, i)})
			if err == nil {
				break
			}
		}
		if err != nil {
			return nil, err
		}
		port := nt.GetAutoBindPort()
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		w.addr[addr] = i
		w.addrs[i] = addr
		c := configFor(o, i)
		c.BindAddr, c.BindPort = "127.0.0.1", port
		c.AdvertiseAddr, c.AdvertisePort = "127.0.0.1", port
		c.Transport = &faultTransport{w: w, idx: i, inner: nt}
		c.Events = &events{w: w, idx: i}
		c.Logger = logFor(w, i)
		ml, err := memberlist.Create(c)
		if err != nil {
			return nil, err
		}
		nodes[i] = ml
	}
	for i := 1; i < o.n; i++ {
		// A push-pull with every earlier node: each joiner starts with the whole list (a join
		// through node 0 alone leaves the last joiners to gossip, which can miss a node).
		if _, err := nodes[i].Join(w.addrs[:i]); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		all := true
		for _, ml := range nodes {
			if ml.NumMembers() != o.n {
				all = false
			}
		}
		if all {
			break
		}
		if time.Now().After(deadline) {
			counts := []int{}
			for _, ml := range nodes {
				counts = append(counts, ml.NumMembers())
			}
			for _, ml := range nodes {
				ml.Shutdown()
			}
			return nil, fmt.Errorf("cluster did not converge: members seen %v", counts)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Duration(o.settle * float64(time.Second)))

	w.start(o)
	var wg sync.WaitGroup
	if o.crashAt >= 0 {
		wg.Add(1)
		time.AfterFunc(time.Duration(o.crashAt*float64(time.Second)), func() {
			defer wg.Done()
			w.crash(o.crashNode)
			nodes[o.crashNode].Shutdown()
		})
	}
	time.Sleep(time.Duration(o.window * float64(time.Second)))
	wg.Wait()
	m := w.stop()
	for i, ml := range nodes {
		if !w.crashed[i] {
			ml.Shutdown()
		}
	}
	return m, nil
}

// ---------------------------------------------------------------------------------------------
// The world: fault settings, ground truth and the metrics recorder (as models/swim/swim_metrics).

type crashRecord struct {
	node                                     int
	crashed                                  float64
	firstSuspicion, firstRemoval, removalAll *float64
}

type world struct {
	mu        sync.Mutex
	n         int
	rng       *rand.Rand
	loss      float64
	addr      map[string]int
	addrs     []string
	t0        time.Time
	measuring bool
	stopped   bool
	slowNode  int
	slow      time.Duration
	holdNode  int
	holdFrom  time.Time
	holdUntil time.Time

	crashed                                                           []bool
	removed                                                           [][]bool
	removedBy                                                         []int
	crashes                                                           []*crashRecord
	counts                                                            map[string]int
	suspicions, falseSuspicions, removals, falseRemovals, refutations int
	window                                                            float64
}

func newWorld(n int, seed int64, loss float64) *world {
	w := &world{n: n, rng: rand.New(rand.NewSource(seed)), loss: loss, addr: map[string]int{},
		addrs: make([]string, n), slowNode: -1, holdNode: -1, crashed: make([]bool, n),
		removedBy: make([]int, n), counts: map[string]int{}}
	w.removed = make([][]bool, n)
	for i := range w.removed {
		w.removed[i] = make([]bool, n)
	}
	return w
}

func (w *world) start(o options) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t0 = time.Now()
	w.measuring = true
	w.window = o.window
	if o.slowNode >= 0 {
		w.slowNode = o.slowNode
		w.slow = time.Duration(o.slowMs * float64(time.Millisecond))
	}
	if o.holdNode >= 0 {
		w.holdNode = o.holdNode
		w.holdFrom = w.t0.Add(time.Duration(o.holdAt * float64(time.Second)))
		w.holdUntil = w.holdFrom.Add(time.Duration(o.holdS * float64(time.Second)))
	}
}

func (w *world) now() float64 { return time.Since(w.t0).Seconds() }

func (w *world) index(name string) int {
	var i int
	if _, err := fmt.Sscanf(name, "node-%d", &i); err != nil {
		return -1
	}
	return i
}

// Extra delay of a datagram or connection src -> dst sent now (slow node, held node).
func (w *world) delay(src, dst int, now time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var d time.Duration
	if w.slowNode >= 0 && (src == w.slowNode || dst == w.slowNode) {
		d = w.slow
	}
	if w.holdNode >= 0 && (src == w.holdNode || dst == w.holdNode) &&
		!now.Before(w.holdFrom) && now.Before(w.holdUntil) {
		if h := w.holdUntil.Sub(now); h > d {
			d = h
		}
	}
	return d
}

func (w *world) drop() bool {
	if w.loss <= 0 {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rng.Float64() < w.loss
}

func (w *world) count(kind string, k int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.measuring && !w.stopped {
		w.counts[kind] += k
	}
}

func (w *world) inWindow() bool { return w.measuring && !w.stopped }

func (w *world) suspicion(by, target int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || target < 0 {
		return
	}
	t := w.now()
	if w.inWindow() {
		w.suspicions++
		if !w.crashed[target] {
			w.falseSuspicions++
		}
	}
	for _, c := range w.crashes {
		if c.node == target && c.firstSuspicion == nil {
			c.firstSuspicion = &t
		}
	}
}

func (w *world) refuted() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.inWindow() {
		w.refutations++
	}
}

func (w *world) leave(observer, target int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || target < 0 || w.crashed[observer] || w.removed[observer][target] {
		return
	}
	t := w.now()
	w.removed[observer][target] = true
	if w.inWindow() {
		w.removals++
		if !w.crashed[target] && w.removedBy[target] == 0 {
			w.falseRemovals++
		}
	}
	w.removedBy[target]++
	for _, c := range w.crashes {
		if c.node == target && c.firstRemoval == nil {
			c.firstRemoval = &t
		}
	}
	w.checkAll(t)
}

func (w *world) join(observer, target int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || target < 0 || !w.removed[observer][target] {
		return
	}
	w.removed[observer][target] = false
	if !w.crashed[observer] {
		w.removedBy[target]--
	}
}

func (w *world) crash(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.now()
	w.crashed[n] = true
	for tg := 0; tg < w.n; tg++ {
		if w.removed[n][tg] {
			w.removedBy[tg]--
		}
	}
	w.crashes = append(w.crashes, &crashRecord{node: n, crashed: t})
	w.checkAll(t)
}

func (w *world) checkAll(t float64) {
	for _, c := range w.crashes {
		if c.firstRemoval == nil || c.removalAll != nil {
			continue
		}
		all := true
		for s := 0; s < w.n; s++ {
			if s != c.node && !w.crashed[s] && !w.removed[s][c.node] {
				all = false
			}
		}
		if all {
			tt := t
			c.removalAll = &tt
		}
	}
}

func summarize(v []float64) map[string]interface{} {
	if len(v) == 0 {
		return map[string]interface{}{"mean": nil, "min": nil, "p50": nil, "max": nil, "count": 0}
	}
	sort.Float64s(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	n := len(v)
	p50 := v[n/2]
	if n%2 == 0 {
		p50 = 0.5 * (v[n/2-1] + v[n/2])
	}
	return map[string]interface{}{"mean": sum / float64(n), "min": v[0], "p50": p50, "max": v[n-1], "count": n}
}

func (w *world) stop() map[string]interface{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	var fs, fr, ra []float64
	undetected := 0
	for _, c := range w.crashes {
		if c.firstSuspicion != nil {
			fs = append(fs, *c.firstSuspicion-c.crashed)
		}
		if c.firstRemoval != nil {
			fr = append(fr, *c.firstRemoval-c.crashed)
		} else {
			undetected++
		}
		if c.removalAll != nil {
			ra = append(ra, *c.removalAll-c.crashed)
		}
	}
	memberS := float64(w.n) * w.window
	msgs := map[string]interface{}{}
	udp, tcp := 0, 0
	for _, k := range []string{"ping", "ack", "indirect_ping", "nack", "gossip", "tcp_ping", "push_pull"} {
		msgs[k] = float64(w.counts[k]) / memberS
		if k == "tcp_ping" || k == "push_pull" {
			tcp += w.counts[k]
		} else {
			udp += w.counts[k]
		}
	}
	msgs["other"] = float64(w.counts["other"]) / memberS
	msgs["udp"] = float64(udp+w.counts["other"]) / memberS
	msgs["tcp"] = float64(tcp) / memberS
	msgs["total"] = float64(udp+tcp+w.counts["other"]) / memberS
	return map[string]interface{}{
		"members_count":                    w.n,
		"measured_s":                       w.window,
		"suspicions_count":                 w.suspicions,
		"false_suspicions_count":           w.falseSuspicions,
		"false_suspicions_per_member_hour": float64(w.falseSuspicions) / (memberS / 3600),
		"refutations_count":                w.refutations,
		"removals_count":                   w.removals,
		"false_removals_count":             w.falseRemovals,
		"false_removals_per_member_hour":   float64(w.falseRemovals) / (memberS / 3600),
		"crashes_count":                    len(w.crashes),
		"crashes_undetected_count":         undetected,
		"detection_first_suspicion_s":      summarize(fs),
		"detection_first_removal_s":        summarize(fr),
		"detection_removal_all_s":          summarize(ra),
		"messages_per_member_per_s":        msgs,
	}
}

// ---------------------------------------------------------------------------------------------
// Hooks: the event delegate (removals) and the log (suspicions raised, refutations).

type events struct {
	w   *world
	idx int
}

func (e *events) NotifyJoin(n *memberlist.Node)   { e.w.join(e.idx, e.w.index(n.Name)) }
func (e *events) NotifyLeave(n *memberlist.Node)  { e.w.leave(e.idx, e.w.index(n.Name)) }
func (e *events) NotifyUpdate(n *memberlist.Node) {}

type logWriter struct {
	w   *world
	idx int
}

func (l *logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(string(p), "\n") {
		if i := strings.Index(line, "memberlist: Suspect "); i >= 0 && strings.Contains(line, "has failed") {
			f := strings.Fields(line[i+len("memberlist: Suspect "):])
			if len(f) > 0 {
				l.w.suspicion(l.idx, l.w.index(f[0]))
			}
		} else if strings.Contains(line, "memberlist: Refuting a") {
			l.w.refuted()
		}
	}
	return len(p), nil
}

func logFor(w *world, i int) *logger { return newLogger(&logWriter{w: w, idx: i}) }

// ---------------------------------------------------------------------------------------------
// The fault-injecting Transport around memberlist's NetTransport.

type faultTransport struct {
	w     *world
	idx   int
	inner *memberlist.NetTransport
}

func (t *faultTransport) FinalAdvertiseAddr(ip string, port int) (net.IP, int, error) {
	return t.inner.FinalAdvertiseAddr(ip, port)
}

func (t *faultTransport) WriteTo(b []byte, addr string) (time.Time, error) {
	now := time.Now()
	t.w.count(classifyPacket(b), 1)
	if t.w.drop() {
		return now, nil
	}
	dst, ok := t.w.addr[addr]
	if !ok {
		dst = -1
	}
	if d := t.w.delay(t.idx, dst, now); d > 0 {
		buf := append([]byte(nil), b...)
		time.AfterFunc(d, func() { t.inner.WriteTo(buf, addr) })
		return now, nil
	}
	return t.inner.WriteTo(b, addr)
}

func (t *faultTransport) PacketCh() <-chan *memberlist.Packet { return t.inner.PacketCh() }

func (t *faultTransport) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	dst, ok := t.w.addr[addr]
	if !ok {
		dst = -1
	}
	// A slow node's connection costs one extra round trip; a held one waits for the release.
	d := t.w.delay(t.idx, dst, time.Now())
	if dst == t.w.slowNode || t.idx == t.w.slowNode {
		d += t.w.slow
	}
	if d > 0 {
		if d >= timeout {
			time.Sleep(timeout)
			t.w.count("tcp_ping", 1)
			return nil, fmt.Errorf("dial %s: i/o timeout (injected)", addr)
		}
		time.Sleep(d)
		timeout -= d
	}
	c, err := t.inner.DialTimeout(addr, timeout)
	if err != nil {
		// Refused or timed out before anything was written: push-pull only dials members it
		// believes alive, so this is (nearly always) a TCP fallback ping.
		t.w.count("tcp_ping", 1)
		return nil, err
	}
	return &countingConn{Conn: c, w: t.w}, nil
}

func (t *faultTransport) StreamCh() <-chan net.Conn { return t.inner.StreamCh() }
func (t *faultTransport) Shutdown() error           { return t.inner.Shutdown() }

// countingConn counts one TCP ping or one push-pull exchange (two messages, one per direction)
// from the first byte the dialling side writes.
type countingConn struct {
	net.Conn
	w       *world
	counted bool
}

func (c *countingConn) Write(b []byte) (int, error) {
	if !c.counted && len(b) > 0 {
		c.counted = true
		switch b[0] {
		case 0:
			c.w.count("tcp_ping", 1)
		case 6:
			c.w.count("push_pull", 2)
		default:
			c.w.count("other", 1)
		}
	}
	return c.Conn.Write(b)
}

var _ io.Writer = (*countingConn)(nil)

// classifyPacket names a UDP packet by its first message (memberlist's messageType values).
func classifyPacket(b []byte) string {
	if len(b) > 5 && b[0] == 12 { // hasCrcMsg: 4-byte CRC, then the message
		b = b[5:]
	}
	if len(b) == 0 {
		return "other"
	}
	t := b[0]
	if t == 7 && len(b) >= 2 { // compoundMsg: count, 2-byte lengths, parts
		n := int(b[1])
		off := 2 + 2*n
		if n == 0 || off >= len(b) {
			return "other"
		}
		t = b[off]
	}
	switch t {
	case 0:
		return "ping"
	case 1:
		return "indirect_ping"
	case 2:
		return "ack"
	case 11:
		return "nack"
	case 3, 4, 5:
		return "gossip"
	}
	return "other"
}
