package redact_test

import (
	"fmt"
	"os"

	"github.com/retrywise/retrywise/internal/redact"
)

func ExampleRedactor_String() {
	r := redact.New(redact.Options{
		Env:    []string{"GITHUB_TOKEN=ghp_exampleToken123", "PATH=/usr/bin"},
		Values: []string{"hunter22"},
	})
	fmt.Println(r.String("push https://x-access-token:ghp_exampleToken123@github.com/o/r.git"))
	fmt.Println(r.String("curl -H 'Authorization: Bearer abc.def' https://api.example.com"))
	fmt.Println(r.String("password is hunter22, PATH is /usr/bin"))
	// Output:
	// push https://x-access-token:***@github.com/o/r.git
	// curl -H 'Authorization: Bearer ***' https://api.example.com
	// password is ***, PATH is /usr/bin
}

func ExampleRedactor_Writer() {
	r := redact.New(redact.Options{Values: []string{"s3cret-value"}})
	w := r.Writer(os.Stdout)
	fmt.Fprint(w, "step 1: ok\n") // written out at once
	fmt.Fprint(w, "token s3cr")
	fmt.Fprint(w, "et-value without newline")
	w.Close()
	// Output:
	// step 1: ok
	// token *** without newline
}
