// Command childcpu measures the CPU time of sandbox children (#30): it
// starts `BIN sandbox-child` for each binary given, in turns, and prints
// the median user+system CPU (the kernel's rusage) of a run (inbox's
// handler file on the crash-before-ack preset) and of a start (an empty
// request: the child initialises, fails to read it and exits). A run is
// split too, as a Runner's warm children split it: the child is left to
// start until it is blocked reading its request (a thread in read(0),
// from /proc), its CPU so far read then (the sum of its threads'
// /proc/PID/task/TID/schedstat), and the request written after; "waiting"
// is what it spent before, "after" the rest, the run's own. Turns, and
// CPU rather than wall time, keep a loaded machine's noise out of the
// comparison.
//
//	go run ./cmd/childcpu -n 40 /tmp/lab.before /tmp/lab.after,GOGC=off
//
// A binary may carry environment variables after commas: the runner of
// the binary being measured sets them (sandbox/runner.go).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
)

func main() {
	n := flag.Int("n", 30, "runs of each binary")
	code := flag.String("code", "sandbox/testdata/builtin/inbox.go", "the handler file a run interprets")
	preset := flag.String("preset", "crash-before-ack", "the preset a run plays")
	flag.Parse()
	if flag.NArg() == 0 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: childcpu [-n 30] [-code FILE] [-preset NAME] BIN[,ENV=VALUE...]...")
		os.Exit(2)
	}
	req, err := request(*code, *preset)
	if err != nil {
		fmt.Fprintln(os.Stderr, "childcpu:", err)
		os.Exit(1)
	}
	runs := make([][]time.Duration, flag.NArg())
	starts := make([][]time.Duration, flag.NArg())
	waits := make([][]time.Duration, flag.NArg())
	afters := make([][]time.Duration, flag.NArg())
	for range *n {
		for i, arg := range flag.Args() {
			r, w, err := cpu(arg, req)
			if err != nil {
				fmt.Fprintln(os.Stderr, "childcpu:", err)
				os.Exit(1)
			}
			s, _, _ := cpu(arg, nil) // an empty request fails on purpose
			runs[i] = append(runs[i], r)
			starts[i] = append(starts[i], s)
			waits[i] = append(waits[i], w)
			afters[i] = append(afters[i], r-w)
		}
	}
	for i, arg := range flag.Args() {
		fmt.Printf("%s\n  run:     %s\n  waiting: %s\n  after:   %s\n  start:   %s\n",
			arg, summary(runs[i]), summary(waits[i]), summary(afters[i]), summary(starts[i]))
	}
}

func request(code, preset string) ([]byte, error) {
	src, err := os.ReadFile(code)
	if err != nil {
		return nil, err
	}
	presets, err := sim.Presets()
	if err != nil {
		return nil, err
	}
	p, err := sim.FindPreset(presets, preset)
	if err != nil {
		return nil, err
	}
	return json.Marshal(sandbox.Request{Op: "run", Name: "yours", Code: string(src), Script: p.Script.String(),
		Memory: 512 << 20, CPU: 5})
}

// cpu runs one unisolated child with the runner's environment and returns
// its CPU time, and what of it the child spent before its request came
// (req nil: an empty request, written at once); an error when a request
// (not an empty one) fails.
func cpu(arg string, req []byte) (total, waiting time.Duration, err error) {
	parts := strings.Split(arg, ",")
	cmd := exec.Command(parts[0], "sandbox-child")
	cmd.Env = append([]string{"LAB_SANDBOX_CHILD=1", "GOMAXPROCS=1", "GOTRACEBACK=single"}, parts[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	notesR, notesW, err := os.Pipe()
	if err != nil {
		return 0, 0, err
	}
	defer notesR.Close()
	cmd.ExtraFiles = []*os.File{notesW}
	var out bytes.Buffer
	cmd.Stdout = &out
	go io.Copy(io.Discard, notesR)
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	notesW.Close()
	if req != nil {
		waiting = blocked(cmd.Process.Pid)
	}
	in.Write(req)
	in.Close()
	err = cmd.Wait()
	if cmd.ProcessState == nil {
		return 0, 0, err
	}
	if req != nil && (err != nil || !bytes.Contains(out.Bytes(), []byte(`"verdict":"ok"`))) {
		return 0, 0, fmt.Errorf("%s: the run failed (%v): %.200s", parts[0], err, out.String())
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), waiting, nil
}

// blocked waits until one of process pid's threads is in read(0), as a
// child waiting for its request is, and returns the CPU its threads have
// used, from the scheduler's own count (nanoseconds).
func blocked(pid int) time.Duration {
	tasks := fmt.Sprintf("/proc/%d/task", pid)
	for {
		ids, err := os.ReadDir(tasks)
		if err != nil {
			return 0 // it has ended
		}
		reading := false
		var used time.Duration
		for _, id := range ids {
			sc, _ := os.ReadFile(tasks + "/" + id.Name() + "/syscall")
			if strings.HasPrefix(string(sc), "0 0x0 ") {
				reading = true
			}
			st, _ := os.ReadFile(tasks + "/" + id.Name() + "/schedstat")
			if f := strings.Fields(string(st)); len(f) > 0 {
				ns, _ := strconv.ParseInt(f[0], 10, 64)
				used += time.Duration(ns)
			}
		}
		if reading {
			return used
		}
		time.Sleep(time.Millisecond)
	}
}

func summary(d []time.Duration) string {
	slices.Sort(d)
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	return fmt.Sprintf("median %.1f ms of CPU (p25 %.1f, p75 %.1f, n %d)", ms(d[len(d)/2]), ms(d[len(d)/4]), ms(d[3*len(d)/4]), len(d))
}
