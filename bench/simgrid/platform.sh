#!/bin/sh
# platform.sh N > platform.xml : a SimGrid cluster of N hosts n0..n{N-1} joined by links of
# 500 us latency, the constant one-way delay of the ring benchmark.
n=$1
cat <<X
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="n" suffix="" radical="0-$((n-1))" speed="1Gf" bw="125MBps" lat="500us"/>
</platform>
X
