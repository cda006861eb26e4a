module outbox

go 1.22
