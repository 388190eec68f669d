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
// Usage: java -cp jgroups.jar:classes Node key=value ...
//   first=0 count=4 total=4 base_port=7800 detector=fd|fd_all|fd_sock
//   fd_timeout=3000 fd_max_tries=2 fd_all_interval=3000 fd_all_timeout=10000
//   verify_timeout=2000 max_bundling_time=50 view_ack_collection_timeout=2000
//   join_timeout=5000 discovery_timeout=1000 loss=0 loss_after_ms=0 run_ms=600000
import java.io.File;
import java.io.FileWriter;
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

    static String stackXml(Map<String, String> a, int port, int total, int basePort) {
        StringBuilder hosts = new StringBuilder();
        for (int i = 0; i < total; i++) {
            if (i > 0) hosts.append(',');
            hosts.append("127.0.0.1[").append(basePort + i).append(']');
        }
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
                {"loss", "0"}, {"loss_after_ms", "0"}, {"run_ms", "600000"}};
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
            st.insertProtocol(new SuspectProbe(name, "detector"), ProtocolStack.ABOVE, det);
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
        long left = runMs - (System.currentTimeMillis() - start);
        if (left > 0) Thread.sleep(left);
        log("{\"t_ns\": " + nowNs() + ", \"ev\": \"end\"}");
        Runtime.getRuntime().halt(0);  // no graceful leave: the driver only reads what was logged
    }
}
