-- What recording an expense found (issue 29): `warnings` [{code, message}], written once by the statement that
-- records the row and then frozen with it (expenses_guard compares the whole row of a recorded expense). The first
-- is `input_vat_needs_allocation`: a supplier's tax invoice above the allocation threshold of its date, recorded
-- without the supplier's allocation number, deducts no input VAT (docs/expenses.md "Input VAT and allocation
-- numbers"). Existing rows have none.
ALTER TABLE expenses ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]';
