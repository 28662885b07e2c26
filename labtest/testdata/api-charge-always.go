// api-charge-always is an API handler that charges every request it
// gets: a retry after a lost answer charges again.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

func Handle(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse {
	if err := d.Gateway.Charge(ctx, r.Account, r.Amount, r.Header); err != nil {
		return handlers.APIResponse{Status: 502, Body: `{"title":"Payment provider failed"}`}
	}
	return handlers.APIResponse{Status: 201, Body: fmt.Sprintf(`{"account":%q,"amount":%d}`, r.Account, r.Amount)}
}
