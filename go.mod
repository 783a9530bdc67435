module github.com/retrywise/retrywise

go 1.26.8

require github.com/cenkalti/backoff/v4 v4.3.0
