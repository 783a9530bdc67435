module github.com/retrywise/retrywise

go 1.26.8

require github.com/cenkalti/backoff/v4 v4.3.0

require (
	github.com/google/go-github/v60 v60.0.0
	github.com/google/go-querystring v1.1.0 // indirect
	golang.org/x/net v0.62.0
	golang.org/x/text v0.43.0 // indirect
)
