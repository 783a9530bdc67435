// Package kubernetes_test checks the Kubernetes examples: every document
// parses, the fields the docs promise are there, and names that refer to
// one another (volumes, ports, labels, the job) agree.
package kubernetes_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/retrywise/retrywise/internal/cli"
)

type doc = map[string]any

// load parses every YAML document of data.
func load(t *testing.T, name string, data []byte) []doc {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []doc
	for {
		var d doc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: document %d: %v", name, len(docs)+1, err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
}

// byKind parses the file and returns its documents by kind, each kind once.
func byKind(t *testing.T, file string) map[string]doc {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]doc{}
	for _, d := range load(t, file, data) {
		kind := fmt.Sprint(d["kind"])
		if _, dup := docs[kind]; dup {
			t.Fatalf("%s: two documents of kind %s", file, kind)
		}
		docs[kind] = d
	}
	return docs
}

// at walks path (keys and list indices, separated by "/") from v; nil when
// any step is missing.
func at(v any, path string) any {
	for _, k := range strings.Split(strings.Trim(path, "/"), "/") {
		switch c := v.(type) {
		case map[string]any:
			v = c[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any) string {
	if v == nil {
		return "<missing>"
	}
	return fmt.Sprint(v)
}

// field is one expected value in a document: fmt.Sprint of the value at path.
type field struct {
	kind, path, want string
}

func check(t *testing.T, docs map[string]doc, fields []field) {
	t.Helper()
	for _, f := range fields {
		if got := str(at(docs[f.kind], f.path)); got != f.want {
			t.Errorf("%s %s = %s, want %s", f.kind, f.path, got, f.want)
		}
	}
}

func kinds(docs map[string]doc) []string {
	var ks []string
	for k := range docs {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// flag returns the value after name in args, or "".
func flag(args []any, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return fmt.Sprint(args[i+1])
		}
	}
	return ""
}

// checkPod checks the names a pod spec refers to: every mount names a
// volume, the ConfigMap and the claim are the file's own, the job file is
// mounted where --config says, the history folder where --history says, and
// the secrets come from a Secret by envFrom.
func checkPod(t *testing.T, docs map[string]doc, pod any) []any {
	t.Helper()
	c := at(pod, "containers/0")
	args, _ := at(c, "args").([]any)
	if str(at(c, "command")) != "[retrywise]" || str(at(args, "0")) != "schedule" {
		t.Fatalf("container runs %s %s, want retrywise schedule ...", str(at(c, "command")), str(args))
	}
	volumes := map[string]any{}
	for _, v := range at(pod, "volumes").([]any) {
		volumes[str(at(v, "name"))] = v
	}
	mounts := map[string]string{}
	for _, m := range at(c, "volumeMounts").([]any) {
		name := str(at(m, "name"))
		if volumes[name] == nil {
			t.Errorf("mount %s names no volume", name)
		}
		mounts[str(at(m, "mountPath"))] = name
	}
	if name := mounts[flag(args, "--config")]; str(at(volumes[name], "configMap/name")) != str(at(docs["ConfigMap"], "metadata/name")) {
		t.Errorf("--config %s is not the ConfigMap's file (mounted: %v)", flag(args, "--config"), mounts)
	}
	if name := mounts[flag(args, "--history")]; str(at(volumes[name], "persistentVolumeClaim/claimName")) != str(at(docs["PersistentVolumeClaim"], "metadata/name")) {
		t.Errorf("--history %s is not on the claim (mounted: %v)", flag(args, "--history"), mounts)
	}
	if got := str(at(c, "envFrom/0/secretRef/name")); got != "retrywise-secrets" {
		t.Errorf("envFrom secretRef %s, want retrywise-secrets", got)
	}
	if mounts["/tmp"] == "" {
		t.Error("no writable /tmp with a read-only root file system")
	}
	if grace := flag(args, "--grace"); grace != "20s" || str(at(pod, "terminationGracePeriodSeconds")) != "30" {
		t.Errorf("--grace %s with terminationGracePeriodSeconds %s, want 20s below 30", grace, str(at(pod, "terminationGracePeriodSeconds")))
	}
	return args
}

// jobFile parses the ConfigMap's job file.
func jobFile(t *testing.T, docs map[string]doc) doc {
	t.Helper()
	src := str(at(docs["ConfigMap"], "data/retrywise.yml"))
	files := load(t, "ConfigMap retrywise.yml", []byte(src))
	if len(files) != 1 || str(at(files[0], "version")) != "1" {
		t.Fatalf("the ConfigMap's retrywise.yml is not one version: 1 document:\n%s", src)
	}
	// And the real validator accepts it, as `retrywise validate` would.
	path := filepath.Join(t.TempDir(), "retrywise.yml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	c := &cli.Command{Stdout: &out, Stderr: &errb}
	if code := c.Main(context.Background(), []string{"retrywise", "validate", "--config", path}); code != 0 {
		t.Errorf("retrywise validate of the ConfigMap's job file: exit %d\n%s", code, errb.String())
	}
	return files[0]
}

func TestCronJob(t *testing.T) {
	docs := byKind(t, "cronjob.yaml")
	if got := kinds(docs); !slices.Equal(got, []string{"ConfigMap", "CronJob", "PersistentVolumeClaim"}) {
		t.Fatalf("kinds %v", got)
	}
	const job = "spec/jobTemplate/spec/"
	const pod = job + "template/spec/"
	check(t, docs, []field{
		{"CronJob", "apiVersion", "batch/v1"},
		{"CronJob", "spec/concurrencyPolicy", "Forbid"},
		{"CronJob", "spec/startingDeadlineSeconds", "300"},
		{"CronJob", job + "backoffLimit", "0"},
		{"CronJob", pod + "restartPolicy", "Never"},
		{"CronJob", pod + "terminationGracePeriodSeconds", "30"},
		{"CronJob", pod + "containers/0/args", "[schedule --once --job publish --config /etc/retrywise/retrywise.yml --history /var/lib/retrywise --grace 20s]"},
		{"PersistentVolumeClaim", "spec/accessModes", "[ReadWriteOnce]"},
	})
	args := checkPod(t, docs, at(docs["CronJob"], pod))
	jobs := jobFile(t, docs)
	if name := flag(args, "--job"); at(jobs, "jobs/"+name+"/steps") == nil {
		t.Errorf("--job %s: no such job with steps in the ConfigMap's file", name)
	}
}

func TestDeployment(t *testing.T) {
	docs := byKind(t, "deployment.yaml")
	if got := kinds(docs); !slices.Equal(got, []string{"ConfigMap", "Deployment", "PersistentVolumeClaim", "Service"}) {
		t.Fatalf("kinds %v", got)
	}
	const pod = "spec/template/spec/"
	const c = pod + "containers/0/"
	check(t, docs, []field{
		{"Deployment", "apiVersion", "apps/v1"},
		{"Deployment", "spec/replicas", "1"},
		{"Deployment", "spec/strategy/type", "Recreate"},
		{"Deployment", c + "args", "[schedule --config /etc/retrywise/retrywise.yml --history /var/lib/retrywise --listen 0.0.0.0:9090 --grace 20s]"},
		{"Deployment", c + "ports/0/name", "metrics"},
		{"Deployment", c + "ports/0/containerPort", "9090"},
		{"Deployment", c + "livenessProbe/httpGet/path", "/healthz"},
		{"Deployment", c + "livenessProbe/httpGet/port", "metrics"},
		{"Deployment", c + "readinessProbe/httpGet/path", "/healthz"},
		{"Deployment", c + "readinessProbe/httpGet/port", "metrics"},
		{"Service", "spec/type", "ClusterIP"},
		{"Service", "spec/ports/0/name", "metrics"},
		{"Service", "spec/ports/0/port", "9090"},
		{"Service", "spec/ports/0/targetPort", "metrics"},
	})
	checkPod(t, docs, at(docs["Deployment"], pod))
	podLabels := str(at(docs["Deployment"], "spec/template/metadata/labels"))
	if sel := str(at(docs["Deployment"], "spec/selector/matchLabels")); sel != podLabels {
		t.Errorf("Deployment selector %s, pod labels %s", sel, podLabels)
	}
	if sel := str(at(docs["Service"], "spec/selector")); sel != podLabels {
		t.Errorf("Service selector %s, pod labels %s", sel, podLabels)
	}
	for name, j := range at(jobFile(t, docs), "jobs").(map[string]any) {
		if at(j, "cron") == nil {
			t.Errorf("job %s has no cron: the scheduler would never run it", name)
		}
	}

	// The commented ServiceMonitor, uncommented, is a valid document that
	// selects the Service and scrapes its metrics port.
	mon := commented(t, "deployment.yaml", "ServiceMonitor-ready")
	sm := map[string]doc{"ServiceMonitor": mon}
	check(t, sm, []field{
		{"ServiceMonitor", "apiVersion", "monitoring.coreos.com/v1"},
		{"ServiceMonitor", "kind", "ServiceMonitor"},
		{"ServiceMonitor", "spec/endpoints/0/port", str(at(docs["Service"], "spec/ports/0/name"))},
		{"ServiceMonitor", "spec/endpoints/0/path", "/metrics"},
		{"ServiceMonitor", "spec/selector/matchLabels", str(at(docs["Service"], "metadata/labels"))},
	})
}

// commented returns the document commented out after the comment holding
// marker: the lines from "# ---" on, their "# " removed.
func commented(t *testing.T, file, marker string) doc {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	seen, in := false, false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		switch {
		case strings.Contains(line, marker):
			seen = true
		case seen && line == "# ---":
			in = true
		case in && strings.HasPrefix(line, "#"):
			b.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "#"), " ") + "\n")
		case in:
			in, seen = false, false
		}
	}
	docs := load(t, file+" (commented)", []byte(b.String()))
	if len(docs) != 1 {
		t.Fatalf("%s: %d documents commented out after %q, want 1", file, len(docs), marker)
	}
	return docs[0]
}
