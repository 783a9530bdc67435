// Command retryablehttp is the bench's go-retryablehttp peer: it GETs each URL
// in order with one retryablehttp.Client on its default policy (RetryMax 4,
// DefaultRetryPolicy, DefaultBackoff), with the wait bounds scaled by -scale.
// Every URL but the last may fail (the run goes on); the exit status is the
// last URL's: 0 on a 2xx, 1 otherwise.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

func main() {
	scale := flag.Float64("scale", 1, "multiply RetryWaitMin (1s) and RetryWaitMax (30s) by this factor")
	flag.Parse()
	c := retryablehttp.NewClient()
	c.RetryWaitMin = time.Duration(float64(c.RetryWaitMin) * *scale)
	c.RetryWaitMax = time.Duration(float64(c.RetryWaitMax) * *scale)
	code := 0
	for _, url := range flag.Args() {
		code = get(c, url)
	}
	os.Exit(code)
}

func get(c *retryablehttp.Client, url string) int {
	resp, err := c.Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		fmt.Fprintf(os.Stderr, "GET %s: %s\n", url, resp.Status)
		return 1
	}
	os.Stdout.Write(body)
	return 0
}
