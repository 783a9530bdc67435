package ghissue

import (
	"strings"
	"testing"
)

func TestRunFromEnv(t *testing.T) {
	full := map[string]string{
		"GITHUB_REPOSITORY":  "octo-org/nightly",
		"GITHUB_WORKFLOW":    "Nightly export",
		"GITHUB_JOB":         "export",
		"GITHUB_SERVER_URL":  "https://ghe.example.com/",
		"GITHUB_RUN_ID":      "9876543210",
		"GITHUB_RUN_ATTEMPT": "3",
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range full {
			m[a] = b
		}
		m[k] = v
		return m
	}
	cases := []struct {
		name string
		env  map[string]string
		want Run
		url  string
		err  string
	}{
		{"all set", full, Run{Owner: "octo-org", Repo: "nightly", Workflow: "Nightly export", Job: "export", ServerURL: "https://ghe.example.com", ID: 9876543210, Attempt: 3},
			"https://ghe.example.com/octo-org/nightly/actions/runs/9876543210/attempts/3", ""},
		{"defaults", with("GITHUB_SERVER_URL", ""), Run{Owner: "octo-org", Repo: "nightly", Workflow: "Nightly export", Job: "export", ServerURL: "https://github.com", ID: 9876543210, Attempt: 3},
			"https://github.com/octo-org/nightly/actions/runs/9876543210/attempts/3", ""},
		{"first attempt", with("GITHUB_RUN_ATTEMPT", "1"), Run{Owner: "octo-org", Repo: "nightly", Workflow: "Nightly export", Job: "export", ServerURL: "https://ghe.example.com", ID: 9876543210, Attempt: 1},
			"https://ghe.example.com/octo-org/nightly/actions/runs/9876543210", ""},
		{"no attempt", with("GITHUB_RUN_ATTEMPT", ""), Run{Owner: "octo-org", Repo: "nightly", Workflow: "Nightly export", Job: "export", ServerURL: "https://ghe.example.com", ID: 9876543210, Attempt: 1},
			"https://ghe.example.com/octo-org/nightly/actions/runs/9876543210", ""},
		{"no repository", with("GITHUB_REPOSITORY", ""), Run{}, "", "GITHUB_REPOSITORY is not set"},
		{"no workflow", with("GITHUB_WORKFLOW", " "), Run{}, "", "GITHUB_WORKFLOW is not set"},
		{"no job", with("GITHUB_JOB", ""), Run{}, "", "GITHUB_JOB is not set"},
		{"no run id", with("GITHUB_RUN_ID", ""), Run{}, "", "GITHUB_RUN_ID is not set"},
		{"repository without owner", with("GITHUB_REPOSITORY", "nightly"), Run{}, "", `GITHUB_REPOSITORY: invalid repository "nightly": want OWNER/REPO`},
		{"repository with a path", with("GITHUB_REPOSITORY", "a/b/c"), Run{}, "", `GITHUB_REPOSITORY: invalid repository "a/b/c"`},
		{"repository owner dot-dot", with("GITHUB_REPOSITORY", "../x"), Run{}, "", `GITHUB_REPOSITORY: invalid repository owner ".."`},
		{"repository dot-dot", with("GITHUB_REPOSITORY", "o/.."), Run{}, "", `GITHUB_REPOSITORY: invalid repository name ".."`},
		{"repository with a query", with("GITHUB_REPOSITORY", "o/r?x=1"), Run{}, "", `GITHUB_REPOSITORY: invalid repository name "r?x=1"`},
		{"run id not a number", with("GITHUB_RUN_ID", "12a"), Run{}, "", `invalid GITHUB_RUN_ID "12a"`},
		{"attempt zero", with("GITHUB_RUN_ATTEMPT", "0"), Run{}, "", `invalid GITHUB_RUN_ATTEMPT "0"`},
		{"server not a URL", with("GITHUB_SERVER_URL", "ghe.example.com"), Run{}, "", `invalid GITHUB_SERVER_URL "ghe.example.com"`},
		{"server with credentials", with("GITHUB_SERVER_URL", "https://x-access-token:s3cr3tvalue@ghe.example.com"), Run{}, "", `invalid GITHUB_SERVER_URL "https://ghe.example.com"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := RunFromEnv(func(k string) string { return c.env[k] })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				if strings.Contains(err.Error(), "s3cr3tvalue") {
					t.Errorf("error shows the credentials: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r != c.want {
				t.Errorf("run %+v, want %+v", r, c.want)
			}
			if r.URL() != c.url {
				t.Errorf("URL() = %q, want %q", r.URL(), c.url)
			}
			if r.Repository() != "octo-org/nightly" {
				t.Errorf("Repository() = %q", r.Repository())
			}
		})
	}
}
