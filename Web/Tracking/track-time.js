// @ts-check
// The ended tracking page: a time the server wrote in UTC, shown in the customer's own time.
for (const element of document.querySelectorAll('time[datetime]')) {
  const at = new Date(element.getAttribute('datetime'));
  if (!Number.isNaN(at.getTime())) element.textContent = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}
