// Command slownode runs ONE real hashicorp/memberlist member in its own OS process, so that a
// coordinator (validation/memberlist/slowness.py) can slow whole processes down the way a
// deployment meets slowness: SIGSTOP/SIGCONT (the process is descheduled: every goroutine, timer
// and socket read waits), CPU contention (a competing burner on the same core, GOMAXPROCS=1), or
// an inbound-processing delay (this program's transport wrapper delays every inbound packet and
// stream by a drawn time while timers and sends run on time; SIGUSR1 switches it on, SIGUSR2 off).
//
// It writes one event per line to -events: "<unix ns> <kind> <node index>", kinds:
//
//	port P          the UDP/TCP port bound (first line)
//	members K       NumMembers() after a join or leave event at this member
//	suspect X       this member's own probe of X failed ("Suspect %s has failed", state.go:494)
//	dead X          this member's suspicion timer for X fired ("Marking %s as failed",
//	                state.go:1211): the dead declaration, by this member as declarer
//	leave X / join X  NotifyLeave / NotifyJoin at this member (removal / rejoin in its view)
//	refute_suspect, refute_dead   this member refuted (state.go:1168, state.go:1250)
//	slow_on, slow_off the inbound delay switched (SIGUSR1 / SIGUSR2)
//	lag U           with -lag_probe, once a second: the largest lateness (microseconds) of
//	                this process's 100-ms timer wake-ups in that second (its scheduling lag)
//
// Timestamps are taken when the line is written, i.e. when this process actually ran the code:
// a stopped process writes its lines after SIGCONT, with the time it ran them.
//
// Build offline in GOPATH mode (nothing vendored, nothing downloaded):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=/tmp/gocache go build -o slownode .
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/memberlist"
)

type eventLog struct {
	mu sync.Mutex
	f  *os.File
}

func (e *eventLog) emit(kind string, arg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprintf(e.f, "%d %s %s\n", time.Now().UnixNano(), kind, arg)
}

func index(name string) string {
	var i int
	if _, err := fmt.Sscanf(name, "node-%d", &i); err != nil {
		return "-1"
	}
	return fmt.Sprint(i)
}

// logWriter turns memberlist's own log lines into events.
type logWriter struct{ ev *eventLog }

func (l *logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(string(p), "\n") {
		if i := strings.Index(line, "memberlist: Suspect "); i >= 0 && strings.Contains(line, "has failed") {
			if f := strings.Fields(line[i+len("memberlist: Suspect "):]); len(f) > 0 {
				l.ev.emit("suspect", index(f[0]))
			}
		} else if i := strings.Index(line, "memberlist: Marking "); i >= 0 && strings.Contains(line, "as failed") {
			if f := strings.Fields(line[i+len("memberlist: Marking "):]); len(f) > 0 {
				l.ev.emit("dead", index(f[0]))
			}
		} else if strings.Contains(line, "memberlist: Refuting a suspect") {
			l.ev.emit("refute_suspect", "-1")
		} else if strings.Contains(line, "memberlist: Refuting a dead") {
			l.ev.emit("refute_dead", "-1")
		}
	}
	return len(p), nil
}

type events struct {
	ev *eventLog
	ml *atomic.Value
}

func (e *events) members() string {
	if m, ok := e.ml.Load().(*memberlist.Memberlist); ok && m != nil {
		return fmt.Sprint(m.NumMembers())
	}
	return "-1"
}
func (e *events) NotifyJoin(n *memberlist.Node) {
	e.ev.emit("join", index(n.Name))
	go func() { e.ev.emit("members", e.members()) }() // NumMembers takes nodeLock, held here
}
func (e *events) NotifyLeave(n *memberlist.Node) {
	e.ev.emit("leave", index(n.Name))
	go func() { e.ev.emit("members", e.members()) }()
}
func (e *events) NotifyUpdate(n *memberlist.Node) {}

// delayTransport wraps NetTransport. While slow, every inbound packet and every accepted stream
// reaches memberlist a drawn time U(0.5, 1.5) x delay after the socket read (NetTransport's
// udpListen stamps and forwards it, net_transport.go:324-349); sends, timers and the probe loop
// run on time. The packet keeps its socket timestamp, as memberlist's would. Draws are
// independent (a later packet can overtake), or with -inbound_fifo a packet is never handed over
// before one that arrived earlier (a processing lag: release = max(arrival + draw, last release)).
type delayTransport struct {
	inner       *memberlist.NetTransport
	packetCh    chan *memberlist.Packet
	streamCh    chan net.Conn
	slow        int32
	delay       time.Duration
	mu          sync.Mutex
	rng         *rand.Rand
	fifo        bool // hand over in arrival order (a lag) instead of independent delays
	lastRelease time.Time
}

func (t *delayTransport) draw() time.Duration {
	if atomic.LoadInt32(&t.slow) == 0 || t.delay <= 0 {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	d := time.Duration((0.5 + t.rng.Float64()) * float64(t.delay))
	if t.fifo {
		// A processing lag: nothing is handed over before what arrived earlier.
		now := time.Now()
		release := now.Add(d)
		if release.Before(t.lastRelease) {
			release = t.lastRelease
		}
		t.lastRelease = release
		d = release.Sub(now)
	}
	return d
}

func (t *delayTransport) run() {
	go func() {
		for p := range t.inner.PacketCh() {
			if d := t.draw(); d > 0 {
				p := p
				time.AfterFunc(d, func() { t.packetCh <- p })
			} else {
				t.packetCh <- p
			}
		}
	}()
	go func() {
		for c := range t.inner.StreamCh() {
			if d := t.draw(); d > 0 {
				c := c
				time.AfterFunc(d, func() { t.streamCh <- c })
			} else {
				t.streamCh <- c
			}
		}
	}()
}

func (t *delayTransport) FinalAdvertiseAddr(ip string, port int) (net.IP, int, error) {
	return t.inner.FinalAdvertiseAddr(ip, port)
}
func (t *delayTransport) WriteTo(b []byte, addr string) (time.Time, error) {
	return t.inner.WriteTo(b, addr)
}
func (t *delayTransport) PacketCh() <-chan *memberlist.Packet { return t.packetCh }
func (t *delayTransport) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	c, err := t.inner.DialTimeout(addr, timeout)
	if err != nil {
		return nil, err
	}
	return &delayedConn{Conn: c, t: t}, nil
}

// delayedConn delays what this member reads from a connection it dialled (a TCP fallback ping's
// ack, sendPingAndWaitForAck net.go:1214-1258; a push-pull reply) by the same draw: the bytes
// are read when they arrive and handed over the drawn time later; a read handed over after the
// deadline memberlist set fails with a timeout, as the slow reader would have.
type delayedConn struct {
	net.Conn
	t        *delayTransport
	deadline time.Time
	delayed  bool // only the first read waits: the response arrives late, once
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout (inbound delay)" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func (c *delayedConn) SetDeadline(d time.Time) error {
	c.deadline = d
	return c.Conn.SetDeadline(d)
}
func (c *delayedConn) SetReadDeadline(d time.Time) error {
	c.deadline = d
	return c.Conn.SetReadDeadline(d)
}
func (c *delayedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n <= 0 || c.delayed {
		return n, err
	}
	c.delayed = true
	if d := c.t.draw(); d > 0 {
		// A reader that gets the bytes after its deadline has timed out at the deadline.
		if !c.deadline.IsZero() && time.Now().Add(d).After(c.deadline) {
			time.Sleep(time.Until(c.deadline))
			return 0, timeoutErr{}
		}
		time.Sleep(d)
	}
	return n, err
}
func (t *delayTransport) StreamCh() <-chan net.Conn { return t.streamCh }
func (t *delayTransport) Shutdown() error           { return t.inner.Shutdown() }

// probeLag measures how late this process runs its timers, as memberlist's own timers would:
// a sleep of 100 ms at a time, the largest lateness (woken minus due) of each second written
// as "lag <microseconds>". A member whose timers run late by a sizeable part of the probe
// timeout (500 ms) is itself slowed, whatever the experiment intends.
func probeLag(ev *eventLog) {
	const period = 100 * time.Millisecond
	var worst time.Duration
	for n := 1; ; n++ {
		due := time.Now().Add(period)
		time.Sleep(time.Until(due))
		if late := time.Since(due); late > worst {
			worst = late
		}
		if n%10 == 0 {
			ev.emit("lag", fmt.Sprint(worst.Microseconds()))
			worst = 0
		}
	}
}

func main() {
	idx := flag.Int("index", 0, "member index (name node-<index>)")
	joinPort := flag.Int("join_port", 0, "port of the member to join (0: first member)")
	awareness := flag.Int("awareness_max", 8, "AwarenessMaxMultiplier (1: LHA-Probe off)")
	suspMax := flag.Int("suspicion_max_mult", 6, "SuspicionMaxTimeoutMult (1: LHA-Suspicion off)")
	tcpPings := flag.Bool("tcp_pings", true, "TCP fallback pings (DisableTcpPings = !tcp_pings)")
	delayMs := flag.Float64("inbound_delay_ms", 0, "mean inbound delay while slow (SIGUSR1 on, SIGUSR2 off)")
	fifo := flag.Bool("inbound_fifo", false, "inbound delay keeps arrival order (a processing lag)")
	seed := flag.Int64("seed", 1, "seed of the delay draws and the start phase")
	evPath := flag.String("events", "", "event file")
	lagProbe := flag.Bool("lag_probe", false, "emit \"lag <us>\" once a second: the largest lateness of a 100-ms ticker in that second (this process's scheduling lag)")
	flag.Parse()

	f, err := os.Create(*evPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "slownode:", err)
		os.Exit(2)
	}
	ev := &eventLog{f: f}
	logger := log.New(&logWriter{ev: ev}, "", log.LstdFlags)

	var nt *memberlist.NetTransport
	for try := 0; try < 10; try++ {
		nt, err = memberlist.NewNetTransport(&memberlist.NetTransportConfig{
			BindAddrs: []string{"127.0.0.1"}, BindPort: 0, Logger: logger})
		if err == nil {
			break
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "slownode:", err)
		os.Exit(1)
	}
	port := nt.GetAutoBindPort()
	rng := rand.New(rand.NewSource(*seed))
	tr := &delayTransport{inner: nt, packetCh: make(chan *memberlist.Packet),
		streamCh: make(chan net.Conn), delay: time.Duration(*delayMs * float64(time.Millisecond)),
		rng: rand.New(rand.NewSource(*seed + 1)), fifo: *fifo}
	tr.run()

	c := memberlist.DefaultLANConfig()
	c.Name = fmt.Sprintf("node-%d", *idx)
	c.EnableCompression = false
	c.BindAddr, c.BindPort = "127.0.0.1", port
	c.AdvertiseAddr, c.AdvertisePort = "127.0.0.1", port
	c.AwarenessMaxMultiplier = *awareness
	c.SuspicionMaxTimeoutMult = *suspMax
	c.DisableTcpPings = !*tcpPings
	c.Transport = tr
	c.Logger = logger
	mlv := &atomic.Value{}
	c.Events = &events{ev: ev, ml: mlv}

	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTERM, syscall.SIGINT)

	// Independent probe-ticker phases: the probe ticker starts at Create() (schedule, state.go:117-122).
	time.Sleep(time.Duration(rng.Int63n(int64(c.ProbeInterval))))
	ml, err := memberlist.Create(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "slownode:", err)
		os.Exit(1)
	}
	mlv.Store(ml)
	ev.emit("port", fmt.Sprint(port))
	if *joinPort > 0 {
		target := fmt.Sprintf("127.0.0.1:%d", *joinPort)
		for try := 0; ; try++ {
			if _, err := ml.Join([]string{target}); err == nil {
				break
			} else if try >= 50 {
				fmt.Fprintln(os.Stderr, "slownode: join:", err)
				os.Exit(1)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	ev.emit("members", fmt.Sprint(ml.NumMembers()))
	if *lagProbe {
		go probeLag(ev)
	}
	for s := range sig {
		switch s {
		case syscall.SIGUSR1:
			atomic.StoreInt32(&tr.slow, 1)
			ev.emit("slow_on", "-1")
		case syscall.SIGUSR2:
			atomic.StoreInt32(&tr.slow, 0)
			ev.emit("slow_off", "-1")
		default:
			f.Sync()
			os.Exit(0)
		}
	}
}
