"""The two screen sizes every screen is checked at, and the words of the rider app the test finds controls by."""


PHONE = (360, 740)
DESKTOP = (1280, 800)
# The app's words the test looks for (the contract's, in English).
SIGN_IN = "Sign in"
GO_ONLINE, GO_OFFLINE = "Go Online", "Go Offline"
WAITING = "Waiting for offers"
ACCEPT, DECLINE = "Accept Task", "Decline"
EXPIRED = "This offer has expired"
TAKEN = "This order has already been assigned"
CANCELLED = "This order has been cancelled"
NOT_ONLINE = "You are offline. Go online to accept offers."
HAS_TASK = "You already have an active task."
AT_STORE, PICKED_UP, AT_DESTINATION = "Arrived at Store", "Picked Up", "Arrived at Destination"
TO_VENDOR, TO_CUSTOMER = "Navigate to Vendor", "Navigate to Customer"
EXIT_NAV, RESUME_NAV, RECENTER = "Exit Navigation", "Resume Navigation", "Re-center"
SEARCHING_GPS = "Searching for GPS signal"
MUTE, UNMUTE = "Mute", "Unmute"
NAV_DOWN = "Navigation service is temporarily unavailable. Please try again shortly."
FAR_QUESTION = "You seem far from the destination. Are you sure you have arrived?"
CAPTURE, ENTER_OTP, SUBMIT_OTP = "Capture Photo", "Enter the customer's delivery code", "Check code"
DELIVERED, COMPLETE, CONTINUE = "Delivered", "Delivery Complete", "Continue"
NEXT_OFFER_WAITING = "A new offer is waiting."
CONTACT_NUMBER = "+377 99 00 00 00"
RETRYING = "No connection, retrying..."
REPORT = "Report a problem"
