// Real JGroups 2.12.2 members on 127.0.0.1 for fdsim's validation (validation/jgroups/README.md).
//
// One JVM runs `count` channels (members named m<first>.. m<first+count-1>), each on its own TCP
// port base_port + index, discovering each other with TCPPING (no multicast). The stack is
// TCP, TCPPING, DISCARD, <one detector>, VERIFY_SUSPECT, NAKACK, UNICAST, STABLE, GMS, with two
// probe protocols of this harness (SuspectProbe) directly above the detector and above
// VERIFY_SUSPECT: they log every SUSPECT event the detector passes up ("detector" suspicion)
// and every one VERIFY_SUSPECT confirms ("verified"), without changing it. The receiver logs
// every view the member installs. Each log record is one JSON line on stdout:
//   {"t_ns": <epoch ns>, "node": "m3", "ev": "view", "members": ["m0",...]}
//   {"t_ns": ..., "node": "m3", "ev": "suspect", "layer": "detector"|"verified", "of": "m5"}
//   {"t_ns": ..., "node": "m3", "ev": "ready"}          (after connect returned)
//   {"t_ns": ..., "ev": "loss_on", "p": 0.05}            (DISCARD switched on, whole JVM)
// Faults are made from outside (validation/jgroups/run_library.py): SIGSTOP of the JVM holding
// the victim (a hang: its sockets stay open, the kernel still accepts data), SIGKILL (a crash:
// the kernel closes its sockets), and loss: after `loss_after_ms`, every member's DISCARD drops
// each received message with probability `loss` (messages a member sends itself are exempt).
//
// stack=tcp / stack=udp run the stacks Debian's jar ships (tcp.xml, udp.xml, read from the jar),
// with only what loopback needs changed: TCP binds 127.0.0.1:<base_port + index> (port_range
// 0), TCPPING lists the N ports; udp.xml's UDP transport and PING discovery are replaced by
// tcp.xml's TCP and TCPPING (the loopback interface has no multicast), everything above the
// transport is udp.xml's. The JVM runs with -Djgroups.bind_addr=127.0.0.1 (FD_SOCK's server
// socket). A PartitionFilter of this harness sits directly above the transport (below
// discovery, so a partition hides the other side from MERGE2 too): a partition makes each
// member drop every message from the other side until the heal. (JGroups' own DISCARD cannot
// hold a partition: its VIEW_CHANGE handling forgets ignored members that left the view,
// DISCARD.java:263 at JGroups_2_12_2_Final, so the sides would see each other again at once.)
//   {"t_ns": ..., "ev": "partition", "a": [...], "b": [...]} / {"t_ns": ..., "ev": "heal"}
// TCP's and FD_SOCK's sockets are outside the stack: an FD_SOCK connection across the partition
// stays up and a new one can be made (a network partition would make the connect time out).
//
// Usage: java -cp jgroups.jar:classes Node key=value ...
//   first=0 count=4 total=4 base_port=7800 detector=fd|fd_all|fd_sock
//   fd_timeout=3000 fd_max_tries=2 fd_all_interval=3000 fd_all_timeout=10000
//   verify_timeout=2000 max_bundling_time=50 view_ack_collection_timeout=2000
//   join_timeout=5000 discovery_timeout=1000 loss=0 loss_after_ms=0 run_ms=600000
//   stack=custom|tcp|udp partition_a=0,1 partition_after_ms=0 heal_after_ms=0
import java.io.File;
import java.io.FileWriter;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.ReceiverAdapter;
import org.jgroups.View;
import org.jgroups.protocols.DISCARD;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;

public class Node {
    static final PrintStream out = System.out;

    static long nowNs() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    static synchronized void log(String json) {
        out.println(json);
        out.flush();
    }

    /** Logs SUSPECT events passing up through it; changes nothing. */
    public static class SuspectProbe extends Protocol {
        final String node;
        final String layer;

        public SuspectProbe(String node, String layer) {
            this.node = node;
            this.layer = layer;
        }

        public String getName() {
            return "SuspectProbe_" + layer;
        }

        public Object up(Event evt) {
            if (evt.getType() == Event.SUSPECT) {
                log("{\"t_ns\": " + nowNs() + ", \"node\": \"" + node + "\", \"ev\": \"suspect\", \"layer\": \""
                        + layer + "\", \"of\": \"" + evt.getArg() + "\"}");
            }
            return up_prot.up(evt);
        }
    }

    /** Drops every message from the members in `blocked` (a partition); changes nothing else. */
    public static class PartitionFilter extends Protocol {
        final Set<Address> blocked = ConcurrentHashMap.newKeySet();

        public String getName() {
            return "PartitionFilter";
        }

        public Object up(Event evt) {
            if (evt.getType() == Event.MSG) {
                org.jgroups.Message m = (org.jgroups.Message) evt.getArg();
                if (m.getSrc() != null && blocked.contains(m.getSrc())) return null;
            }
            return up_prot.up(evt);
        }
    }

    static String shipped(String name) throws Exception {
        try (InputStream in = JChannel.class.getClassLoader().getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static String replaceOnce(String s, String regex, String with) {
        String r = s.replaceFirst(regex, java.util.regex.Matcher.quoteReplacement(with));
        if (r.equals(s)) throw new IllegalStateException("shipped XML changed: no match for " + regex);
        return r;
    }

    /** tcp.xml or udp.xml as shipped in the jar, with loopback's changes (see the header). */
    static String shippedXml(String stack, int port, String hosts) throws Exception {
        String tcp = shipped("tcp.xml");
        tcp = replaceOnce(tcp, "<TCP bind_port=\"7800\"", "<TCP bind_port=\"" + port + "\" port_range=\"0\"");
        tcp = replaceOnce(tcp, "initial_hosts=\"\\$\\{jgroups.tcpping.initial_hosts:[^\"]*\"\\s*port_range=\"1\"",
                "initial_hosts=\"" + hosts + "\" port_range=\"0\"");
        if (stack.equals("tcp")) return tcp;
        String udp = shipped("udp.xml");
        int t0 = tcp.indexOf("<TCP "), t1 = tcp.indexOf("<MERGE2");
        int u0 = udp.indexOf("<UDP"), u1 = udp.indexOf("<MERGE2");
        if (t0 < 0 || t1 < 0 || u0 < 0 || u1 < 0) throw new IllegalStateException("shipped XML changed");
        return udp.substring(0, u0) + tcp.substring(t0, t1) + udp.substring(u1);
    }

    static String stackXml(Map<String, String> a, int port, int total, int basePort) throws Exception {
        StringBuilder hosts = new StringBuilder();
        for (int i = 0; i < total; i++) {
            if (i > 0) hosts.append(',');
            hosts.append("127.0.0.1[").append(basePort + i).append(']');
        }
        if (!a.get("stack").equals("custom")) return shippedXml(a.get("stack"), port, hosts.toString());
        String det;
        switch (a.get("detector")) {
            case "fd":
                det = "<FD timeout=\"" + a.get("fd_timeout") + "\" max_tries=\"" + a.get("fd_max_tries") + "\"/>";
                break;
            case "fd_all":
                det = "<FD_ALL interval=\"" + a.get("fd_all_interval") + "\" timeout=\"" + a.get("fd_all_timeout")
                        + "\"/>";
                break;
            case "fd_sock":
                det = "<FD_SOCK bind_addr=\"127.0.0.1\"/>";
                break;
            default:
                throw new IllegalArgumentException("detector must be fd, fd_all or fd_sock");
        }
        // Bundling off: a message leaves at once instead of waiting up to max_bundle_timeout for
        // company, so loopback delivery is sub-millisecond as in the model (documented).
        return "<config xmlns=\"urn:org:jgroups\">\n"
                + "<TCP bind_addr=\"127.0.0.1\" bind_port=\"" + port + "\" port_range=\"0\" loopback=\"true\""
                + " enable_bundling=\"false\" sock_conn_timeout=\"300\" enable_diagnostics=\"false\""
                + " thread_pool.rejection_policy=\"run\" oob_thread_pool.rejection_policy=\"run\"/>\n"
                + "<TCPPING initial_hosts=\"" + hosts + "\" port_range=\"0\" timeout=\"" + a.get("discovery_timeout")
                + "\" num_initial_members=\"" + total + "\"/>\n"
                + "<DISCARD/>\n"
                + det + "\n"
                + "<VERIFY_SUSPECT timeout=\"" + a.get("verify_timeout") + "\"/>\n"
                + "<pbcast.NAKACK use_mcast_xmit=\"false\" gc_lag=\"0\" retransmit_timeout=\"300,600,1200,2400,4800\""
                + " discard_delivered_msgs=\"true\"/>\n"
                + "<UNICAST timeout=\"300,600,1200\"/>\n"
                + "<pbcast.STABLE stability_delay=\"1000\" desired_avg_gossip=\"50000\" max_bytes=\"4M\"/>\n"
                + "<pbcast.GMS print_local_addr=\"false\" join_timeout=\"" + a.get("join_timeout") + "\""
                + " view_bundling=\"true\" max_bundling_time=\"" + a.get("max_bundling_time") + "\""
                + " view_ack_collection_timeout=\"" + a.get("view_ack_collection_timeout") + "\"/>\n"
                + "</config>\n";
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        String[][] defaults = {{"first", "0"}, {"count", "4"}, {"total", "4"}, {"base_port", "7800"},
                {"detector", "fd"}, {"fd_timeout", "3000"}, {"fd_max_tries", "2"}, {"fd_all_interval", "3000"},
                {"fd_all_timeout", "10000"}, {"verify_timeout", "2000"}, {"max_bundling_time", "50"},
                {"view_ack_collection_timeout", "2000"}, {"join_timeout", "5000"}, {"discovery_timeout", "1000"},
                {"loss", "0"}, {"loss_after_ms", "0"}, {"run_ms", "600000"}, {"stack", "custom"},
                {"partition_a", ""}, {"partition_after_ms", "0"}, {"heal_after_ms", "0"}};
        for (String[] d : defaults) a.put(d[0], d[1]);
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0 || !a.containsKey(arg.substring(0, eq)))
                throw new IllegalArgumentException("unknown argument " + arg);
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        int first = Integer.parseInt(a.get("first"));
        int count = Integer.parseInt(a.get("count"));
        int total = Integer.parseInt(a.get("total"));
        int basePort = Integer.parseInt(a.get("base_port"));
        List<JChannel> channels = new ArrayList<>();
        List<PartitionFilter> filters = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            final String name = "m" + i;
            File cfg = File.createTempFile("jgroups-" + name + "-", ".xml");
            cfg.deleteOnExit();
            try (FileWriter w = new FileWriter(cfg)) {
                w.write(stackXml(a, basePort + i, total, basePort));
            }
            JChannel ch = new JChannel(cfg);
            ch.setName(name);
            ProtocolStack st = ch.getProtocolStack();
            String det = a.get("detector").toUpperCase();
            if (!a.get("stack").equals("custom"))
                det = a.get("stack").equals("tcp") ? "FD" : "FD_ALL";  // the top detector: FD_SOCK's pass through it
            st.insertProtocol(new SuspectProbe(name, "detector"), ProtocolStack.ABOVE, det);
            PartitionFilter pf = new PartitionFilter();
            st.insertProtocol(pf, ProtocolStack.ABOVE, "TCP");
            filters.add(pf);
            st.insertProtocol(new SuspectProbe(name, "verified"), ProtocolStack.ABOVE, "VERIFY_SUSPECT");
            ch.setReceiver(new ReceiverAdapter() {
                public void viewAccepted(View v) {
                    StringBuilder m = new StringBuilder();
                    for (Address x : v.getMembers()) {
                        if (m.length() > 0) m.append(", ");
                        m.append('"').append(x).append('"');
                    }
                    log("{\"t_ns\": " + nowNs() + ", \"node\": \"" + name + "\", \"ev\": \"view\", \"members\": ["
                            + m + "]}");
                }
            });
            ch.connect("fdsim-validation");
            log("{\"t_ns\": " + nowNs() + ", \"node\": \"" + name + "\", \"ev\": \"ready\"}");
            channels.add(ch);
        }
        double loss = Double.parseDouble(a.get("loss"));
        long lossAfter = Long.parseLong(a.get("loss_after_ms"));
        long runMs = Long.parseLong(a.get("run_ms"));
        long start = System.currentTimeMillis();
        if (loss > 0) {
            Thread.sleep(lossAfter);
            for (JChannel ch : channels) {
                DISCARD d = (DISCARD) ch.getProtocolStack().findProtocol(DISCARD.class);
                d.setUpDiscardRate(loss);
            }
            log("{\"t_ns\": " + nowNs() + ", \"ev\": \"loss_on\", \"p\": " + loss + "}");
        }
        if (!a.get("partition_a").isEmpty()) {
            // Every member of the partition runs in this JVM (first=0, count=total).
            Set<Integer> sideA = new java.util.HashSet<>();
            for (String x : a.get("partition_a").split(",")) sideA.add(Integer.parseInt(x.trim()));
            while (channels.stream().anyMatch(c -> c.getView() == null || c.getView().size() < total))
                Thread.sleep(10);
            Thread.sleep(Long.parseLong(a.get("partition_after_ms")));
            StringBuilder la = new StringBuilder(), lb = new StringBuilder();
            for (int i = 0; i < channels.size(); i++) {
                boolean inA = sideA.contains(first + i);
                StringBuilder l = inA ? la : lb;
                if (l.length() > 0) l.append(", ");
                l.append("\"m").append(first + i).append('"');
                for (int j = 0; j < channels.size(); j++)
                    if (sideA.contains(first + j) != inA) filters.get(i).blocked.add(channels.get(j).getAddress());
            }
            log("{\"t_ns\": " + nowNs() + ", \"ev\": \"partition\", \"a\": [" + la + "], \"b\": [" + lb + "]}");
            Thread.sleep(Long.parseLong(a.get("heal_after_ms")));
            for (PartitionFilter f : filters) f.blocked.clear();
            log("{\"t_ns\": " + nowNs() + ", \"ev\": \"heal\"}");
        }
        long left = runMs - (System.currentTimeMillis() - start);
        if (left > 0) Thread.sleep(left);
        log("{\"t_ns\": " + nowNs() + ", \"ev\": \"end\"}");
        Runtime.getRuntime().halt(0);  // no graceful leave: the driver only reads what was logged
    }
}
