// Package cli holds what the runner and the demo share and the port's four
// parts do not need: it is kept out of package outbox, which is the
// practice's code panel.
package cli

import (
	"errors"

	"outbox"
)

// Unexpected is the first error of a pass that is not a publish failure:
// those are the broker's weather, retried by the next pass; anything else
// is the port's bug, which the runner answers as an error and the demo
// stops on.
func Unexpected(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if !errors.Is(e, outbox.ErrPublishFailed) {
				return e
			}
		}
	}
	return nil
}
