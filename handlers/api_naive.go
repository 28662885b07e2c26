package handlers

import "context"

// APINaive charges and records a payment for every request. It ignores the
// Idempotency-Key (a request without one is served too) and gives the
// gateway no reference.
//
// Guarantees nothing: a client that times out and retries, a double click,
// a proxy that resends, each is one more charge and one more payment.
func APINaive(ctx context.Context, d Deps, r APIRequest) APIResponse {
	ok, err := accountExists(ctx, d.DB, r.Account)
	if err != nil {
		return serverError(d, "read account", err)
	}
	if !ok {
		return problem(statusNoAccount, "Account not found", "no account "+r.Account)
	}

	d.Point(BeforeEffect)
	// No reference: the provider cannot tell a retry from a new payment.
	if err := d.Gateway.Charge(ctx, r.Account, r.Amount, ""); err != nil {
		d.Log("charge %s: %v", r.Account, err)
		return problem(statusGatewayDown, "Payment provider failed", "the payment provider did not confirm the charge")
	}
	d.Point(AfterEffect)

	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return serverError(d, "begin", err)
	}
	defer tx.Rollback()
	p, err := recordPayment(ctx, tx, d, r, "")
	if err != nil {
		return serverError(d, "record payment", err)
	}
	if err := tx.Commit(); err != nil {
		return serverError(d, "commit", err)
	}
	return created(p)
}
