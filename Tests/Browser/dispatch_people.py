"""The People tab on the dispatcher's page, at 360 px and on a desktop. A dispatcher adds a rider and suspends them,
and is offered nothing about staff (the server says 403 to a dispatcher adding an admin). An admin adds a rider (the
invitation goes out), finds them, suspends them, reads their sign-ins, and gives a rider who had no phone one.
dispatch_page_test.py runs it after the shifts."""

import uuid

from selenium.webdriver.common.by import By

from browser_support import ARTIFACTS, Server, browser, check, check_contrast, mint, wait_for


def field(driver, form, label):
    return driver.find_element(
        By.XPATH, f"//form[@id='{form}']//label[normalize-space()='{label}']/following-sibling::input[1]")


def button(driver, words):
    return driver.find_element(By.XPATH, f"//button[normalize-space()=\"{words}\"]")


def press(driver, element):
    """Taps a control once scrolled to the middle of the screen, clear of the tabs that stick to the top on a phone."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def dispatchers_riders(driver, server, name, width, height):
    """A dispatcher adds a rider and suspends them; nothing about staff is offered, and the server refuses it."""
    dispatcher = mint("dispatcher", str(uuid.uuid4()), name="Dana Dispatcher")
    driver.get(server.base + "/dispatch#token=" + dispatcher)
    wait_for(f"{name}: a dispatcher has a People tab", lambda: driver.find_element(By.ID, "tab-people").is_displayed())
    press(driver, driver.find_element(By.XPATH, "//button[@role='tab'][normalize-space()='People']"))
    wait_for(f"{name}: it is about riders", lambda: driver.find_element(By.ID, "people-title").text
             == "Riders: add and suspend")
    check(not driver.find_element(By.ID, "person-role").is_displayed()
          and not driver.find_element(By.ID, "store-form").is_displayed(),
          f"{name}: a dispatcher is offered no other role and no store to add")
    field(driver, "person-form", "Name").send_keys("Rui Almeida")
    field(driver, "person-form", "Phone number").send_keys("+377 99 44 55 71")
    press(driver, button(driver, "Add and send the invitation"))
    wait_for(f"{name}: the dispatcher's rider is added and invited",
             lambda: "invitation is on its way to +37799445571" in driver.find_element(By.ID, "person-error").text)
    wait_for(f"{name}: and listed", lambda: "Rui Almeida" in driver.find_element(By.ID, "people").text)
    driver.execute_script("window.confirm = () => true")
    press(driver, button(driver, "Suspend Rui Almeida"))
    wait_for(f"{name}: the dispatcher suspended the rider, with a way back",
             lambda: driver.find_elements(By.XPATH, "//button[normalize-space()='Reinstate Rui Almeida']"))
    check(not driver.find_elements(By.XPATH, "//button[normalize-space()='Sign-ins']"),
          f"{name}: a dispatcher reads no sign-ins")
    refused = server.call("POST", "/api/v1/staff", dispatcher,
                          {"name": "Eve Admin", "phone": "+37799445572", "role": "admin"}, expect=(403,))
    check(refused.get("code") == "FORBIDDEN", f"{name}: a dispatcher adding an admin is 403 ({refused.get('detail')})")
    driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-people-dispatcher-{width}x{height}.png")


def people_tab(width, height, name):
    server = Server()
    driver = None
    try:
        driver = browser(width, height)
        dispatchers_riders(driver, server, name, width, height)
        # A rider met through a token before anyone typed their phone: "no phone yet".
        newcomer = mint("rider", str(uuid.uuid4()), name="Omar Haddad")
        server.call("GET", "/api/v1/rider/me", newcomer)
        admin = mint("admin", str(uuid.uuid4()), name="Avery Admin")
        driver.get(server.base + "/dispatch#token=" + admin)
        wait_for(f"{name}: an admin has a People tab", lambda: driver.find_element(By.ID, "tab-people").is_displayed())
        press(driver, driver.find_element(By.XPATH, "//button[@role='tab'][normalize-space()='People']"))
        wait_for(f"{name}: the People view opens", lambda: driver.find_element(By.ID, "view-people").is_displayed())
        driver.find_element(By.XPATH, "//form[@id='person-form']//label[normalize-space()='Name']/following-sibling::input[1]").send_keys(
            "Nina Costa")
        driver.find_element(By.XPATH, "//form[@id='person-form']//label[normalize-space()='Phone number']/following-sibling::input[1]") \
            .send_keys("+377 99 44 55 61")
        press(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Add and send the invitation']"))
        wait_for(f"{name}: the rider is added and invited",
                 lambda: "invitation is on its way to +37799445561" in driver.find_element(By.ID, "person-error").text)
        wait_for(f"{name}: and listed", lambda: "Nina Costa" in driver.find_element(By.ID, "people").text)
        driver.find_element(By.ID, "person-name").send_keys("Nina Twin")
        driver.find_element(By.ID, "person-phone").send_keys("+37799445561")
        press(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Add and send the invitation']"))
        wait_for(f"{name}: a phone someone has is refused in words",
                 lambda: "already has this phone" in driver.find_element(By.ID, "person-error").text)
        driver.execute_script("window.confirm = () => true")
        press(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Suspend Nina Costa']"))
        wait_for(f"{name}: suspended, with a way back",
                 lambda: driver.find_elements(By.XPATH, "//button[normalize-space()='Reinstate Nina Costa']"))
        press(driver, driver.find_element(By.XPATH, "(//button[normalize-space()='Sign-ins'])[1]"))
        wait_for(f"{name}: the sign-ins are shown", lambda: "Never signed in" in driver.find_element(By.ID, "people").text)
        check("Omar Haddad · Rider · no phone yet" in driver.find_element(By.ID, "people").text,
              f"{name}: a rider without a phone says so")
        press(driver, button(driver, "Add Omar Haddad’s phone"))
        driver.find_element(By.XPATH, "//ul[@id='people']//label[normalize-space()='New phone for Omar Haddad']"
                                      "/following-sibling::input[1]").send_keys("+377 99 44 55 73")
        press(driver, button(driver, "Save the phone"))
        wait_for(f"{name}: the admin gave the rider a phone",
                 lambda: "Omar Haddad · Rider · +37799445573" in driver.find_element(By.ID, "people").text)
        check(button(driver, "Correct Omar Haddad’s phone").is_displayed(), f"{name}: and it can be corrected")
        driver.execute_script("document.getElementById('view-people').scrollIntoView()")
        driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-people-{width}x{height}.png")
        check_contrast(driver, f"{name} people")
        errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                  and "409" not in entry["message"]]
        check(not errors, f"{name}: no errors in the console but the refused phone's 409 ({errors[:2]})")
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
